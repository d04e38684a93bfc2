package schemacheck

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testSchema = `{
	"type": "object",
	"additionalProperties": false,
	"required": ["path"],
	"properties": {
		"path": {"type": "string", "minLength": 1},
		"opts": {
			"type": "object",
			"additionalProperties": false,
			"properties": {"upper": {"type": "boolean"}}
		},
		"lines": {"type": "array", "items": {"type": "object", "properties": {"from": {"type": "integer"}}}}
	}
}`

func TestCheck(t *testing.T) {
	s, err := Compile("t", []byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth)
	for _, tc := range []struct {
		name string
		args string
		want []Violation
	}{
		{"valid", `{"path": "a"}`, nil},
		{"missing required", `{}`, []Violation{{"", "missing property 'path'"}}},
		{"every problem at once", `{"path": "", "x": 1}`, []Violation{
			{"", "additional properties 'x' not allowed"},
			{"/path", "minLength: got 0, want 1"},
		}},
		{"duplicate key", `{"path": "a", "path": "b"}`, []Violation{{"/path", `duplicate key "path"`}}},
		{"case variant", `{"Path": "a"}`, []Violation{
			{"", "missing property 'path'"},
			{"", "additional properties 'Path' not allowed"},
			{"/Path", `unknown key "Path": keys are case-sensitive; did you mean "path"?`},
		}},
		{"case variant in an object", `{"path": "a", "opts": {"Upper": true}}`, []Violation{
			{"/opts", "additional properties 'Upper' not allowed"},
			{"/opts/Upper", `unknown key "Upper": keys are case-sensitive; did you mean "upper"?`},
		}},
		{"case variant in an array's items", `{"path": "a", "lines": [{"From": 1}]}`, []Violation{
			{"/lines/0/From", `unknown key "From": keys are case-sensitive; did you mean "from"?`},
		}},
		{"integers in every spelling", `{"path": "a", "lines": [{"from": 1}, {"from": -0}, {"from": 1.0}, {"from": 2e3}, {"from": 9007199254740993}]}`, nil},
		{"not an integer", `{"path": "a", "lines": [{"from": 1.5}, {"from": 1e-3}]}`, []Violation{
			{"/lines/0/from", "got number, want integer"},
			{"/lines/1/from", "got number, want integer"},
		}},
		{"pointer tokens escaped", `{"path": "a", "a/b~": 1}`, []Violation{{"", "additional properties 'a/b~' not allowed"}}},
		{"not JSON", `{"path":`, []Violation{{"", "arguments are not valid JSON: EOF"}}},
		{"not an object", `["path"]`, []Violation{{"", "arguments must be a JSON object"}}},
		{"extra data", `{"path": "a"} {}`, []Violation{{"", "arguments are followed by extra data"}}},
		{"too deep", `{"path": "a", "opts": ` + deep + `}`, []Violation{{"", fmt.Sprintf("arguments are not valid JSON: nested deeper than %d levels", MaxDepth)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inst, perr := Parse([]byte(tc.args))
			got := s.Check([]byte(tc.args), inst, perr)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Check(%s) (-want +got):\n%s", tc.args, diff)
			}
		})
	}
}

func TestCheckBoundsTheReport(t *testing.T) {
	s, err := Compile("t", []byte(`{"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	args := `{"a": [` + strings.TrimSuffix(strings.Repeat("1,", 2*MaxViolations), ",") + `]}`
	inst, perr := Parse([]byte(args))
	got := s.Check([]byte(args), inst, perr)
	if len(got) != MaxViolations+1 || got[MaxViolations].Message != "more problems not shown" {
		t.Errorf("got %d violations, the last %v; want %d and a last one saying more were not shown", len(got), got[len(got)-1], MaxViolations+1)
	}
}

func TestCompileRefusesExternalReferences(t *testing.T) {
	for _, ref := range []string{"https://example.com/s.json", "file:///etc/passwd", "other.json"} {
		schema := fmt.Sprintf(`{"type": "object", "properties": {"a": {"$ref": %q}}}`, ref)
		if _, err := Compile("t", []byte(schema)); err == nil || !strings.Contains(err.Error(), "schema loading is disabled") {
			t.Errorf("Compile with $ref %s: err = %v, want loading refused", ref, err)
		}
	}
}

// TestCompileRefusesInvalidSchemas: a schema is checked against its draft's
// meta-schema, which the validator compiles on first use, not at init.
func TestCompileRefusesInvalidSchemas(t *testing.T) {
	for _, schema := range []string{
		`{"type": "text"}`,
		`{"type": "object", "properties": {"a": {"minLength": -1}}}`,
		`{"type": "object", "required": "a"}`,
	} {
		if _, err := Compile("t", []byte(schema)); err == nil || !strings.Contains(err.Error(), "jsonschema validation failed") {
			t.Errorf("Compile(%s): err = %v, want the meta-schema's refusal", schema, err)
		}
	}
}

// TestCompileConcurrently compiles from several goroutines at once, so that
// the race detector sees the first use of the meta-schemas from all of them.
func TestCompileConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, errs[i] = Compile("t", []byte(testSchema)) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestKeysFastPath: the arguments of almost every call (one object of
// lower-case keys) are found clean without allocating, and a lower-case key
// that is a case variant of a declared mixed-case property is still
// reported.
func TestKeysFastPath(t *testing.T) {
	s, err := Compile("t", []byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	args := []byte(`{"path": "src/a.go", "opts": {"upper": true}, "lines": [{"from": 1}, {"from": 2}]}`)
	if n := testing.AllocsPerRun(100, func() { s.keys(args) }); n != 0 {
		t.Errorf("checking the keys of %s allocated %v times, want 0", args, n)
	}
	mixed, err := Compile("m", []byte(`{"type": "object", "properties": {"maxBytes": {"type": "integer"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []Violation{{"/maxbytes", `unknown key "maxbytes": keys are case-sensitive; did you mean "maxBytes"?`}}
	if got := mixed.Check([]byte(`{"maxbytes": 1}`), map[string]any{"maxbytes": json.Number("1")}, nil); !cmp.Equal(got, want) {
		t.Errorf("Check = %v, want %v", got, want)
	}
}

// FuzzKeys checks the one-pass key check against the token by token one.
func FuzzKeys(f *testing.F) {
	for _, seed := range []string{
		`{"path": "a"}`, `{"path": "a", "path": "b"}`, `{"Path": 1}`, `{"p\u0061th": 1, "path": 2}`,
		`{"lines": [{"from": 1, "from": 2}]}`, `[1]`, `{"a": 1} x`, `{"a":`, `{"é": 1}`,
		strings.Repeat(`{"a":`, MaxDepth-1) + "1" + strings.Repeat("}", MaxDepth-1),
		strings.Repeat(`[`, MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
	} {
		f.Add([]byte(seed))
	}
	s, err := Compile("t", []byte(testSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		wantOut, wantFatal := s.checkKeys(args)
		gotOut, gotFatal := s.keys(args)
		if gotFatal != wantFatal || !cmp.Equal(gotOut, wantOut) {
			t.Fatalf("keys(%q) = %v, %v; checkKeys says %v, %v", args, gotOut, gotFatal, wantOut, wantFatal)
		}
	})
}

// TestCompileTrusted: Compile refuses a schema its meta-schema refuses;
// CompileTrusted, for a program's own schemas, does not check it, and the
// schema still validates what it can.
func TestCompileTrusted(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"n":{"type":"integer","minimum":"zero"}},"required":["n"]}`)
	if _, err := Compile("meta", schema); err == nil {
		t.Error("Compile accepted a minimum that is not a number")
	}
	s, err := CompileTrusted("meta", schema)
	if err != nil {
		t.Fatalf("CompileTrusted: %v", err)
	}
	inst, perr := Parse([]byte(`{}`))
	if v := s.Check([]byte(`{}`), inst, perr); len(v) != 1 {
		t.Errorf("the trusted schema found %v in {}; want n missing", v)
	}
}
