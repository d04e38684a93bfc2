package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Func is a tool's typed implementation. It receives arguments that have
// already been validated against the input schema and decoded into In. It
// returns the output, or an error: an [*Error] for failures the caller can
// act on, anything else for internal faults.
type Func[In, Out any] func(ctx context.Context, req *Request, in In) (Out, error)

// registered is a tool as the server holds it.
type registered struct {
	def       Tool
	input     map[string]any // JSON Schema of the arguments
	output    map[string]any // JSON Schema of the structured result
	validator *validator
	// stripRequestID reports that request_id is the framework's, not a
	// field of the input type, so it is removed before decoding.
	stripRequestID bool
	invoke         Handler
	handle         Handler // invoke wrapped in the middleware chain
}

// Register adds a tool whose arguments are an In and whose structured
// result is an Out. Both must be structs whose exported fields all have json
// tags; their JSON Schemas are derived from them when the tool is
// registered (descriptions from jsonschema tags, in invopop's or go-sdk's
// form, and from t.Comments). Register fails, without side effects, when
// the definition is incomplete, the types would give a schema that does
// not constrain a model, a tag cannot be read, or the name is taken.
func Register[In, Out any](s *Server, t Tool, fn Func[In, Out]) error {
	if err := t.check(); err != nil {
		return err
	}
	in, err := reflectSchema(reflect.TypeFor[In](), t.Comments)
	if err != nil {
		return fmt.Errorf("tool %s: input: %w", t.Name, err)
	}
	out, err := reflectSchema(reflect.TypeFor[Out](), t.Comments)
	if err != nil {
		return fmt.Errorf("tool %s: output: %w", t.Name, err)
	}
	if props, _ := out["properties"].(map[string]any); props[requestIDField] != nil {
		return fmt.Errorf("tool %s: output: %s is added by the server; remove the field", t.Name, requestIDField)
	}
	strip := withRequestID(in)
	withResultRequestID(out)
	v, err := newValidator(t.Name, in)
	if err != nil {
		return fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	r := &registered{def: t, input: in, output: out, validator: v, stripRequestID: strip}
	r.invoke = func(ctx context.Context, req *Request) *Result {
		return invoke(ctx, s, req, fn)
	}
	return s.add(r)
}

// MustRegister is like [Register] but panics on error. It is meant for
// program setup, where a bad tool definition is a programming error.
func MustRegister[In, Out any](s *Server, t Tool, fn Func[In, Out]) {
	if err := Register(s, t, fn); err != nil {
		panic(err)
	}
}

// invoke decodes the validated arguments, calls fn and renders its output.
func invoke[In, Out any](ctx context.Context, s *Server, req *Request, fn Func[In, Out]) *Result {
	var in In
	if err := decodeArguments(req.Arguments, req.tool.stripRequestID, &in); err != nil {
		// The schema accepted what the type cannot hold (a number out of
		// range for its Go type, say): still the caller's to fix.
		return errorResult(&Error{Class: InvalidInput, Message: "arguments do not fit the tool's types: " + err.Error()})
	}
	out, err := fn(ctx, req, in)
	if err != nil {
		return s.failure(req, err)
	}
	data, err := json.Marshal(out)
	if err != nil {
		return s.failure(req, fmt.Errorf("marshal output: %w", err))
	}
	res := &Result{Structured: withRequestIDField(data, req.ID)}
	if t, ok := any(out).(Texter); ok {
		res.Text = t.Text()
	} else {
		res.Text = string(res.Structured)
	}
	return res
}

func decodeArguments(args json.RawMessage, stripRequestID bool, dst any) error {
	if stripRequestID && bytes.Contains(args, []byte(`"`+requestIDField+`"`)) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(args, &m); err != nil {
			return err
		}
		if _, ok := m[requestIDField]; ok {
			delete(m, requestIDField)
			var err error
			if args, err = json.Marshal(m); err != nil {
				return err
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// begin prepares the Request of a call from what the transport delivered.
func (s *Server) begin(r *registered, args json.RawMessage) *Request {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	req := &Request{Tool: r.def.Name, Arguments: args, Caller: s.opts.Caller, tool: r, started: time.Now()}
	req.parsed, req.parseErr = jsonschema.UnmarshalJSON(bytes.NewReader(args))
	top, _ := req.parsed.(map[string]any)
	if id, ok := top[requestIDField].(string); ok && validRequestID(id) {
		req.ID = id
	} else {
		req.ID = newID("r-")
	}
	if ws, ok := top["workspace_id"].(string); ok && validRequestID(ws) {
		req.WorkspaceID = ws
	}
	return req
}
