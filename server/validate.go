package server

import (
	"errors"
	"fmt"
	"maps"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/repo-mcp/repo-mcp/internal/schemacheck"
)

// A Violation is one problem with a call's arguments: the JSON pointer of
// the offending value ("" for the arguments object) and what is wrong.
// The harness checks a model's arguments with the same checker before it
// sends them, so both sides report a problem in the same words.
type Violation = schemacheck.Violation

// newValidator returns a function that compiles a tool's input schema the
// first time it is called and then returns what that compile gave. The
// schema is the server's own, made from a Go type: it is compiled without
// checking it against the draft's meta-schema, which [Server.CheckSchemas]
// does, and the tests with it.
func newValidator(name string, schema *schemaDoc) func() (*schemacheck.Schema, error) {
	return sync.OnceValues(func() (*schemacheck.Schema, error) {
		return compileInput(name, schema, schemacheck.CompileTrusted)
	})
}

// compileInput compiles a tool's input schema with compile.
func compileInput(name string, schema *schemaDoc, compile func(string, []byte) (*schemacheck.Schema, error)) (*schemacheck.Schema, error) {
	data, err := schema.JSON()
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", name, err)
	}
	v, err := compile(name, data)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", name, err)
	}
	return v, nil
}

// checkPatterns reports a "pattern" of the schema, at any depth, that is
// not a regular expression (the validator compiles them with Go's regexp):
// a mistyped tag fails Register, as it did when Register compiled the
// whole schema, at a fraction of the cost. Parsing is the only step of
// regexp.Compile that can fail, and a third of its cost.
func checkPatterns(schema any) error {
	switch v := schema.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if pat, ok := v[k].(string); ok && k == "pattern" {
				if _, err := syntax.Parse(pat, syntax.Perl); err != nil {
					return fmt.Errorf("pattern %q: %w", pat, err)
				}
			} else if err := checkPatterns(v[k]); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := checkPatterns(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckSchemas compiles the input schema of every registered tool, as
// calls otherwise do at each tool's first call, and checks it against its
// draft's meta-schema, which calls do not; it returns the errors.
func (s *Server) CheckSchemas() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(s.tools)) {
		if _, err := compileInput(name, s.tools[name].input, schemacheck.Compile); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// violationsError turns violations into the one invalid_input error a model
// can fix all of them from.
func violationsError(vs []Violation) *Error {
	var b strings.Builder
	if len(vs) == 1 {
		b.WriteString("1 problem with the arguments:")
	} else {
		fmt.Fprintf(&b, "%d problems with the arguments:", len(vs))
	}
	for _, v := range vs {
		p := v.Pointer
		if p == "" {
			p = "(root)"
		}
		fmt.Fprintf(&b, "\n- %s: %s", p, v.Message)
	}
	return &Error{
		Class:   InvalidInput,
		Message: b.String(),
		Hint:    "fix every problem listed, then call again",
		Details: vs,
	}
}
