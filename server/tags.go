package server

import (
	"fmt"
	"reflect"
	"strings"
)

// Struct tags.
//
// Descriptions and constraints come from the jsonschema tag in invopop's
// form, comma-separated key=value pairs:
//
//	Path string `json:"path" jsonschema:"description=File path\\, relative to the root.,maxLength=4096"`
//
// go-sdk's form, a tag that is all description, is understood too, so that
// a tool ported from go-sdk keeps its descriptions:
//
//	Path string `json:"path" jsonschema:"File path, relative to the root."`
//
// A tag is in go-sdk's form when its first comma-separated part is neither
// key=value nor one of invopop's bare keywords. Such a tag may not go on
// with key=value parts or bare keywords: whether they belong to the
// description or constrain the value cannot be told, so Register refuses
// the tag and shows the invopop form.

// invopopKeywords are the parts of an invopop tag that stand alone.
var invopopKeywords = map[string]bool{"-": true, "required": true, "nullable": true}

// keyValuePart reports whether p starts as an invopop key=value part does:
// letters and underscores, then "=". (A function, not a regexp compiled at
// package init, which every command of the binary would pay for.)
func keyValuePart(p string) bool {
	key, _, ok := strings.Cut(p, "=")
	return ok && key != "" && !strings.ContainsFunc(key, func(r rune) bool {
		return r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z')
	})
}

// tagDescription returns the description of a field's jsonschema tag in
// go-sdk's form, "" for a tag in invopop's form (or none), and an error for
// a tag that mixes both.
func tagDescription(f reflect.StructField) (string, error) {
	tag := f.Tag.Get("jsonschema")
	parts := strings.Split(tag, ",")
	first := strings.TrimSpace(parts[0])
	if tag == "" || keyValuePart(first) || invopopKeywords[first] {
		return "", nil
	}
	for i, p := range parts[1:] {
		if p := strings.TrimSpace(p); keyValuePart(p) || invopopKeywords[p] {
			desc, rest := strings.Join(parts[:i+1], `\\,`), strings.Join(parts[i+1:], ",")
			return "", fmt.Errorf("jsonschema tag %q: a description followed by %q: write the tag in invopop's form, "+
				`jsonschema:"description=%s,%s" (as Go source: a comma inside the description is written \\,)`, tag, p, desc, rest)
		}
	}
	return tag, nil
}

// lookupTagDescription gives invopop the description of a field whose
// jsonschema tag is in go-sdk's form. invopop asks only when the tag gave
// it no description of its own, and before it consults Tool.Comments, so
// the tag's description wins over the doc comment, as in invopop's form.
func lookupTagDescription(t reflect.Type, field string) string {
	if field == "" || t.Kind() != reflect.Struct {
		return ""
	}
	f, ok := t.FieldByName(field)
	if !ok {
		return ""
	}
	desc, err := tagDescription(f)
	if err != nil { // refused by checkType before reflection
		return ""
	}
	return desc
}
