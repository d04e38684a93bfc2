package server_test

import (
	"context"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

type untagged struct {
	Path string
}
type withAny struct {
	V any `json:"v"`
}
type recursive struct {
	Next *recursive `json:"next,omitempty"`
}
type withFunc struct {
	F func() `json:"f"`
}
type withChan struct {
	C chan int `json:"c"`
}
type intMap struct {
	M map[int]string `json:"m"`
}
type mixedTag struct {
	D string `json:"d" jsonschema:"The d, at most 3,maxLength=3"`
}
type outWithRequestID struct {
	RequestID string `json:"request_id"`
}

func noop[In, Out any](context.Context, *server.Request, In) (Out, error) {
	var out Out
	return out, nil
}

func TestRegisterRejects(t *testing.T) {
	good := server.Tool{Name: "t", Description: "d", Effect: server.ReadOnly}
	named := func(f func(*server.Tool)) server.Tool { t := good; f(&t); return t }
	tests := []struct {
		name     string
		register func(*server.Server) error
		want     string
	}{
		{"untagged field", func(s *server.Server) error { return server.Register(s, good, noop[untagged, empty]) }, "without a json tag"},
		{"any field", func(s *server.Server) error { return server.Register(s, good, noop[withAny, empty]) }, "accepts anything"},
		{"recursive", func(s *server.Server) error { return server.Register(s, good, noop[recursive, empty]) }, "recursive"},
		{"func field", func(s *server.Server) error { return server.Register(s, good, noop[withFunc, empty]) }, "no JSON form"},
		{"chan field", func(s *server.Server) error { return server.Register(s, good, noop[withChan, empty]) }, "no JSON form"},
		{"int map keys", func(s *server.Server) error { return server.Register(s, good, noop[intMap, empty]) }, "map keys"},
		{"description then key=value", func(s *server.Server) error { return server.Register(s, good, noop[mixedTag, empty]) },
			`jsonschema:"description=The d\\, at most 3,maxLength=3"`},
		{"non-struct input", func(s *server.Server) error { return server.Register(s, good, noop[string, empty]) }, "must be structs"},
		{"any input", func(s *server.Server) error { return server.Register(s, good, noop[any, empty]) }, "accepts anything"},
		{"any output", func(s *server.Server) error { return server.Register(s, good, noop[empty, withAny]) }, "output"},
		{"output declares request_id", func(s *server.Server) error { return server.Register(s, good, noop[empty, outWithRequestID]) }, "added by the server"},
		{"bad name", func(s *server.Server) error {
			return server.Register(s, named(func(t *server.Tool) { t.Name = "Read File" }), noop[empty, empty])
		}, "tool name"},
		{"no description", func(s *server.Server) error {
			return server.Register(s, named(func(t *server.Tool) { t.Description = "" }), noop[empty, empty])
		}, "description is required"},
		{"no effect", func(s *server.Server) error {
			return server.Register(s, named(func(t *server.Tool) { t.Effect = "" }), noop[empty, empty])
		}, "effect"},
		{"duplicate", func(s *server.Server) error {
			server.MustRegister(s, good, noop[empty, empty])
			return server.Register(s, good, noop[empty, empty])
		}, "already registered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := server.New(server.Info{Name: "x"}, server.Options{})
			err := tt.register(s)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Register: got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestAnnotationsAlwaysExplicit(t *testing.T) {
	c := startTest(t, server.Options{})
	want := map[string][4]bool{ // readOnly, destructive, idempotent, openWorld
		"echo":    {true, false, true, false},
		"fail":    {false, false, true, false},
		"size":    {true, false, true, false},
		"sleep":   {false, true, false, true},
		"wait":    {true, false, true, false},
		"who":     {true, false, true, false},
		"confirm": {false, true, false, false},
	}
	tools := c.Tools()
	if len(tools) != len(want) {
		t.Fatalf("listed %d tools, want %d", len(tools), len(want))
	}
	for _, tool := range tools {
		a := tool.Annotations
		if tool.Description == "" || a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: description or annotations missing: %+v", tool.Name, a)
			continue
		}
		got := [4]bool{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
		if got != want[tool.Name] {
			t.Errorf("%s: annotations (readOnly, destructive, idempotent, openWorld) = %v, want %v", tool.Name, got, want[tool.Name])
		}
	}
}

// TestDescriptionNamesErrors checks the error classes a tool's description
// ends with: the framework's own (permission_denied only with an Action),
// then the tool's, in one order; and that a class the framework does not
// know is refused.
func TestDescriptionNamesErrors(t *testing.T) {
	for _, tt := range []struct {
		tool server.Tool
		want string
	}{
		{server.Tool{Name: "plain", Description: "d", Effect: server.ReadOnly},
			"invalid_input, transient, internal."},
		{server.Tool{Name: "reads", Description: "d", Effect: server.ReadOnly, Action: "read", Errors: []server.Class{server.NotFound}},
			"invalid_input, permission_denied, not_found, transient, internal."},
		{server.Tool{Name: "applies", Description: "d", Effect: server.Write, Errors: []server.Class{server.PreconditionFailed, server.NotFound}},
			"invalid_input, not_found, precondition_failed, transient, internal."},
	} {
		s := server.New(server.Info{Name: "x"}, server.Options{})
		if err := server.Register(s, tt.tool, noop[empty, empty]); err != nil {
			t.Fatal(err)
		}
		if got := s.Tools()[0].Description; !strings.HasPrefix(got, "d\n\nErrors: ") || !strings.Contains(got, ": "+tt.want) {
			t.Errorf("%s: description %q; want it to name %s", tt.tool.Name, got, tt.want)
		}
	}
	s := server.New(server.Info{Name: "x"}, server.Options{})
	bad := server.Tool{Name: "bad", Description: "d", Effect: server.ReadOnly, Errors: []server.Class{"oops"}}
	if err := server.Register(s, bad, noop[empty, empty]); err == nil {
		t.Error("Register accepted the error class \"oops\"")
	}
}

type badPattern struct {
	P string `json:"p" jsonschema:"pattern=(unclosed"`
}

// TestSchemaCompiledAtFirstCall: Register leaves the input schema's compile
// to the tool's first call (a new process answers sooner) but still refuses
// a tag's pattern that is not a regular expression, at any depth;
// CheckSchemas compiles every schema up front.
func TestSchemaCompiledAtFirstCall(t *testing.T) {
	s := server.New(server.Info{Name: "x"}, server.Options{})
	server.MustRegister(s, server.Tool{Name: "good", Description: "d", Effect: server.ReadOnly}, noop[mixedTagOK, empty])
	if err := server.Register(s, server.Tool{Name: "bad", Description: "d", Effect: server.ReadOnly}, noop[badPattern, empty]); err == nil || !strings.Contains(err.Error(), "(unclosed") {
		t.Errorf("Register with a bad pattern: got %v, want its error", err)
	}
	if err := server.Register(s, server.Tool{Name: "deep", Description: "d", Effect: server.ReadOnly}, noop[deepBadPattern, empty]); err == nil || !strings.Contains(err.Error(), "[z-a]") {
		t.Errorf("Register with a bad pattern in a nested item: got %v, want its error", err)
	}
	if err := s.CheckSchemas(); err != nil {
		t.Errorf("CheckSchemas: %v", err)
	}
	c := servertest.Start(t, s)
	if res := c.Call("good", map[string]any{"d": "abcd"}); res.ErrorClass() != "invalid_input" {
		t.Errorf("call of good with a d too long: class %q, want invalid_input", res.ErrorClass())
	}
}

// badMultiple's schema has a multipleOf the meta-schema refuses (it must
// be positive), which validates all the same.
type badMultiple struct {
	N int `json:"n" jsonschema:"multipleOf=-2"`
}

// TestCheckSchemasChecksTheMetaSchema: a call compiles its tool's schema
// without checking it against the draft's meta-schema (the server's own
// schemas), so CheckSchemas, which the schemas command and the tests
// run, is what refuses one the meta-schema refuses.
func TestCheckSchemasChecksTheMetaSchema(t *testing.T) {
	s := server.New(server.Info{Name: "x"}, server.Options{})
	server.MustRegister(s, server.Tool{Name: "neg", Description: "d", Effect: server.ReadOnly}, noop[badMultiple, empty])
	if err := s.CheckSchemas(); err == nil || !strings.Contains(err.Error(), "neg") {
		t.Errorf("CheckSchemas: %v; want the meta-schema's refusal of tool neg", err)
	}
	if res := servertest.Start(t, s).Call("neg", map[string]any{"n": 4}); res.IsError {
		t.Errorf("a call of neg failed: %+v", res)
	}
}

type deepBadPattern struct {
	Items []struct {
		Q string `json:"q" jsonschema:"pattern=[z-a]"`
	} `json:"items"`
}

type mixedTagOK struct {
	D string `json:"d" jsonschema:"description=The d,maxLength=3"`
}
