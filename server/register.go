package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/schemacheck"
)

// Func is a tool's typed implementation. It receives arguments that have
// already been validated against the input schema and decoded into In. It
// returns the output, or an error: an [*Error] for failures the caller can
// act on, anything else for internal faults.
type Func[In, Out any] func(ctx context.Context, req *Request, in In) (Out, error)

// registered is a tool as the server holds it.
type registered struct {
	def    Tool
	input  *schemaDoc // JSON Schema of the arguments
	output *schemaDoc // JSON Schema of the structured result
	// types gives GeneratedSchema.Types for the tool's types.
	types func() string
	// validator compiles the input schema at the tool's first call:
	// compiling every tool's at start was half of a new process's work
	// before it could answer anything.
	validator func() (*schemacheck.Schema, error)
	// decode turns validated arguments into the tool's input type: once
	// per call, before the Authorize hook, which reads the typed input.
	decode func(args json.RawMessage) (any, error)
	invoke Handler
	handle Handler // invoke wrapped in the middleware chain
}

// Register adds a tool whose arguments are an In and whose structured
// result is an Out. Both must be structs whose exported fields all have json
// tags; their JSON Schemas are derived from them when the tool is
// registered (descriptions from jsonschema tags, in invopop's or go-sdk's
// form, and from t.Comments), unless [Options.Schemas] holds them for
// these types already. Register fails, without side effects, when
// the definition is incomplete, the types would give a schema that does
// not constrain a model, a tag cannot be read, or the name is taken.
//
// The input schema is compiled for validation when the tool is first
// called, not here: compiling every tool's at start was half of a new
// process's work. What a tag can get wrong is checked here all the same
// (a pattern that is not a regular expression); a schema the validator
// still refused would fail each call of the tool as internal.
// [Server.CheckSchemas] compiles them all at once.
func Register[In, Out any](s *Server, t Tool, fn Func[In, Out]) error {
	if err := t.check(); err != nil {
		return err
	}
	inT, outT := reflect.TypeFor[In](), reflect.TypeFor[Out]()
	in, out, ok := s.generated(t.Name, inT, outT, t.Comments)
	if !ok {
		var err error
		if in, out, err = deriveSchemas(t, inT, outT); err != nil {
			return err
		}
	}
	r := &registered{def: t, input: in, output: out, validator: newValidator(t.Name, in), decode: decodeArguments[In]}
	r.types = func() string { return schemaTypes(inT, outT, t.Comments) }
	r.invoke = func(ctx context.Context, req *Request) *Result {
		return invoke(ctx, s, req, fn)
	}
	return s.add(r)
}

// deriveSchemas reflects a tool's input and output schemas from its types,
// adds the request_id both carry, and checks what a tag can get wrong.
func deriveSchemas(t Tool, inT, outT reflect.Type) (in, out *schemaDoc, err error) {
	inMap, err := reflectSchema(inT, t.Comments)
	if err != nil {
		return nil, nil, fmt.Errorf("tool %s: input: %w", t.Name, err)
	}
	outMap, err := reflectSchema(outT, t.Comments)
	if err != nil {
		return nil, nil, fmt.Errorf("tool %s: output: %w", t.Name, err)
	}
	if props, _ := outMap["properties"].(map[string]any); props[requestIDField] != nil {
		return nil, nil, fmt.Errorf("tool %s: output: %s is added by the server; remove the field", t.Name, requestIDField)
	}
	if err := checkPatterns(inMap); err != nil {
		return nil, nil, fmt.Errorf("tool %s: input: %w", t.Name, err)
	}
	withRequestID(inMap)
	withResultRequestID(outMap)
	return mapDoc(inMap), mapDoc(outMap), nil
}

// MustRegister is like [Register] but panics on error. It is meant for
// program setup, where a bad tool definition is a programming error.
func MustRegister[In, Out any](s *Server, t Tool, fn Func[In, Out]) {
	if err := Register(s, t, fn); err != nil {
		panic(err)
	}
}

// invoke calls fn with the decoded arguments and renders its output.
func invoke[In, Out any](ctx context.Context, s *Server, req *Request, fn Func[In, Out]) *Result {
	in, ok := req.input.(In)
	if !ok {
		// The chain decodes before it authorizes; a call that reaches the
		// tool without its input is a fault of the chain.
		return s.failure(req, fmt.Errorf("tool %s called without decoded arguments", req.Tool))
	}
	out, err := fn(ctx, req, in)
	if err != nil {
		return s.failure(req, err)
	}
	var structured []byte
	if a, ok := any(out).(JSONAppender); ok {
		structured = appendWithRequestID(a, req.ID)
	} else {
		data, err := json.Marshal(out)
		if err != nil {
			return s.failure(req, fmt.Errorf("marshal output: %w", err))
		}
		structured = withRequestIDField(data, req.ID)
	}
	res := &Result{Structured: structured}
	switch t := any(out).(type) {
	case TextPiecer:
		res.pieces = t.TextPieces()
	case Texter:
		res.Text = t.Text()
	default:
		res.Text = string(res.Structured)
	}
	if l, ok := any(out).(Linker); ok {
		res.Links = l.Links()
	}
	return res
}

// decodeArguments decodes arguments that passed the input schema into an
// In. The schema has refused unknown members and case variants of known
// ones already; request_id, when In does not declare it, is the
// framework's and is ignored here.
func decodeArguments[In any](args json.RawMessage) (any, error) {
	var in In
	if err := json.Unmarshal(args, &in); err != nil {
		return nil, err
	}
	return in, nil
}

// begin prepares the Request of a call from what the transport delivered.
func (s *Server) begin(r *registered, args json.RawMessage) *Request {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	req := &Request{Tool: r.def.Name, Arguments: args, Caller: s.opts.Caller, tool: r, started: time.Now()}
	req.parsed, req.parseErr = schemacheck.Parse(args)
	top, _ := req.parsed.(map[string]any)
	if id, ok := top[requestIDField].(string); ok && validRequestID(id) {
		req.ID, req.idGiven = id, true
	} else {
		req.ID = newID("r-")
	}
	return req
}
