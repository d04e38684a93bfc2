package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestDescriptionsNameJSONFields checks every property of every tool's
// input and output schema: a model reads the descriptions and knows the
// arguments by their JSON names, so none may begin with the Go name of its
// field ("IncludeTests includes ..." for include_tests). gencomments writes
// the JSON name there; a description written by hand must do the same.
func TestDescriptionsNameJSONFields(t *testing.T) {
	s, err := allTools()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tool := range s.Tools() {
		for _, schema := range []map[string]any{tool.InputSchema, tool.OutputSchema} {
			walkProperties(schema, func(name, desc string) {
				checked++
				if goName := firstWord(desc); goName != name && strings.EqualFold(goName, strings.ReplaceAll(name, "_", "")) {
					t.Errorf("%s: %s: the description begins with the Go name %s: %q", tool.Name, name, goName, desc)
				}
			})
		}
	}
	if checked < 50 {
		t.Errorf("checked %d descriptions: the walk misses properties", checked)
	}
}

// walkProperties calls fn with the name and description of every property
// in schema, nested objects and array items included.
func walkProperties(schema map[string]any, fn func(name, desc string)) {
	if items, ok := schema["items"].(map[string]any); ok {
		walkProperties(items, fn)
	}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		ps, _ := p.(map[string]any)
		if desc, ok := ps["description"].(string); ok {
			fn(name, desc)
		}
		walkProperties(ps, fn)
	}
}

// firstWord is the identifier a description begins with.
func firstWord(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	if end < 0 {
		return s
	}
	return s[:end]
}

// TestSchemasCheckCounts checks the count schemas --check gives, in the
// singular and the plural.
func TestSchemasCheckCounts(t *testing.T) {
	dir := t.TempDir()
	var out, errs strings.Builder
	if err := schemas([]string{"--dir", dir}, &out, &errs); err != nil {
		t.Fatal(err)
	}
	if err := schemas([]string{"--check", "--dir", dir}, &out, &errs); err != nil {
		t.Fatalf("fresh schemas: %v", err)
	}
	for i, want := range []string{"1 schema file is stale", "2 schema files are stale"} {
		name := []string{"read_file.input.json", "read_file.output.json"}[i]
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := schemas([]string{"--check", "--dir", dir}, &out, &errs); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("check: %v; want %q", err, want)
		}
	}
}

// TestDescriptionsNameErrorClasses checks that every tool's description
// ends by naming the error classes it can end with: at least the
// framework's own, and not_found for every tool (each reads a workspace,
// whose paths and revisions may not exist).
func TestDescriptionsNameErrorClasses(t *testing.T) {
	s, err := allTools()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range s.Tools() {
		_, errs, ok := strings.Cut(tool.Description, "\n\nErrors: ")
		if !ok {
			t.Errorf("%s: the description names no error classes: %q", tool.Name, tool.Description)
			continue
		}
		for _, class := range []string{"invalid_input", "permission_denied", "not_found", "transient", "internal"} {
			if !strings.Contains(errs, class) {
				t.Errorf("%s: the errors %q do not name %s", tool.Name, errs, class)
			}
		}
	}
}
