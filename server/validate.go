package server

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/internal/schemacheck"
)

// A Violation is one problem with a call's arguments: the JSON pointer of
// the offending value ("" for the arguments object) and what is wrong.
// The harness checks a model's arguments with the same checker before it
// sends them, so both sides report a problem in the same words.
type Violation = schemacheck.Violation

// newValidator compiles a tool's input schema.
func newValidator(name string, schema map[string]any) (*schemacheck.Schema, error) {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	return schemacheck.Compile(name, data)
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
