package server

import (
	"reflect"
	"testing"
)

type typesOut struct {
	N int `json:"n"`
}

// TestSchemaTypesSeeChanges: every change to a tool's types that could
// change its schemas changes its Types (a field, its name, type, tags, a
// nested type, a doc comment), and nothing else does.
func TestSchemaTypesSeeChanges(t *testing.T) {
	out := reflect.TypeFor[typesOut]()
	base := reflect.TypeFor[struct {
		A string `json:"a"`
	}]()
	comments := map[string]string{"github.com/repo-mcp/repo-mcp/server.typesOut": "What it says."}
	want := schemaTypes(base, out, comments)
	if again := schemaTypes(reflect.TypeFor[struct {
		A string `json:"a"`
	}](), out, map[string]string{"github.com/repo-mcp/repo-mcp/server.typesOut": "What it says.", "other.T": "unrelated"}); again != want {
		t.Errorf("the same types and comments give %s, then %s", want, again)
	}
	for _, tc := range []struct {
		name     string
		in       reflect.Type
		comments map[string]string
	}{
		{"field added", reflect.TypeFor[struct {
			A string `json:"a"`
			B string `json:"b"`
		}](), comments},
		{"field renamed", reflect.TypeFor[struct {
			B string `json:"a"`
		}](), comments},
		{"field type", reflect.TypeFor[struct {
			A int `json:"a"`
		}](), comments},
		{"json tag", reflect.TypeFor[struct {
			A string `json:"a,omitempty"`
		}](), comments},
		{"jsonschema tag", reflect.TypeFor[struct {
			A string `json:"a" jsonschema:"maxLength=3"`
		}](), comments},
		{"slice of it", reflect.TypeFor[struct {
			A []string `json:"a"`
		}](), comments},
		{"nested field type", reflect.TypeFor[struct {
			A struct {
				B int `json:"b"`
			} `json:"a"`
		}](), comments},
		{"type comment", base, map[string]string{"github.com/repo-mcp/repo-mcp/server.typesOut": "What it says now."}},
		{"field comment", base, map[string]string{"github.com/repo-mcp/repo-mcp/server.typesOut": "What it says.", "github.com/repo-mcp/repo-mcp/server.typesOut.N": "How many."}},
	} {
		if got := schemaTypes(tc.in, out, tc.comments); got == want {
			t.Errorf("%s: Types unchanged (%s)", tc.name, got)
		}
	}
	if got := schemaTypes(out, base, comments); got == want {
		t.Errorf("input and output swapped: Types unchanged (%s)", got)
	}
}

// TestSchemaTypesRecursive: a recursive type, which Register refuses,
// still has Types.
func TestSchemaTypesRecursive(t *testing.T) {
	type node struct {
		Next *node `json:"next"`
	}
	if schemaTypes(reflect.TypeFor[node](), reflect.TypeFor[typesOut](), nil) == "" {
		t.Error("no Types")
	}
}
