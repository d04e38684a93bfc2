package schemacheck

import (
	"encoding/json"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// flatObject checks the shape most tools take, an object whose members
// are strings, integers and booleans, directly on the parsed arguments,
// without the general validator's walk (a tenth of a small call's CPU,
// its number checks through math/big). It only ever accepts: arguments
// it does not accept, whether invalid or only beyond what it knows, go to
// the general validator, which then says what is wrong. So it may be
// stricter than the schema, never looser; TestFlatAgrees and
// FuzzFlatAgrees hold it to that.
type flatObject struct {
	// props holds the declared properties; a nil entry is one whose
	// schema this check does not know (an array, say), and arguments
	// that carry it go to the general validator.
	props    map[string]*flatProp
	required []string
	closed   bool // additionalProperties is false
}

// flatProp is the schema of one scalar member.
type flatProp struct {
	typ              string   // "string", "integer" or "boolean"
	enum             []string // strings only; nil: any
	minLen, maxLen   int      // in code points, as the validator counts; -1: none
	pattern          *regexp.Regexp
	hasMin, hasMax   bool
	minimum, maximum int64
}

// annotation reports whether keyword does not constrain a value.
func annotation(keyword string) bool {
	switch keyword {
	case "description", "title", "default", "examples":
		return true
	}
	return false
}

// compileFlat returns the flat check of schema (a document decoded with
// numbers as json.Number), or nil when schema is not an object schema made
// only of the keywords it knows.
func compileFlat(schema any) *flatObject {
	root, ok := schema.(map[string]any)
	if !ok || root["type"] != "object" {
		return nil
	}
	f := &flatObject{props: map[string]*flatProp{}}
	for key, v := range root {
		switch key {
		case "type", "description", "title":
		case "additionalProperties":
			b, ok := v.(bool)
			if !ok {
				return nil
			}
			f.closed = !b
		case "required":
			list, ok := v.([]any)
			if !ok {
				return nil
			}
			for _, r := range list {
				name, ok := r.(string)
				if !ok {
					return nil
				}
				f.required = append(f.required, name)
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			for name, sub := range props {
				f.props[name] = compileFlatProp(sub) // nil when not known
			}
		default:
			return nil
		}
	}
	return f
}

// compileFlatProp returns the check of one property's schema, or nil.
func compileFlatProp(schema any) *flatProp {
	m, ok := schema.(map[string]any)
	if !ok {
		return nil
	}
	p := &flatProp{minLen: -1, maxLen: -1}
	p.typ, _ = m["type"].(string)
	if p.typ != "string" && p.typ != "integer" && p.typ != "boolean" {
		return nil
	}
	for key, v := range m {
		ok := true
		switch key {
		case "type":
		case "enum":
			p.enum, ok = stringList(v)
			ok = ok && p.typ == "string"
		case "minLength":
			p.minLen, ok = smallInt(v)
		case "maxLength":
			p.maxLen, ok = smallInt(v)
		case "pattern":
			s, isString := v.(string)
			re, err := regexp.Compile(s) // as the validator compiles it
			p.pattern, ok = re, isString && err == nil
		case "minimum":
			p.minimum, ok = integer(v)
			p.hasMin = ok
		case "maximum":
			p.maximum, ok = integer(v)
			p.hasMax = ok
		default:
			ok = annotation(key)
		}
		if !ok {
			return nil
		}
	}
	if (p.hasMin || p.hasMax) && p.typ != "integer" {
		return nil
	}
	return p
}

func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, false
	}
	out := make([]string, len(list))
	for i, e := range list {
		if out[i], ok = e.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

func smallInt(v any) (int, bool) {
	n, ok := integer(v)
	return int(n), ok && n >= 0 && n <= 1<<31
}

// integer reads a number written as a plain integer that fits an int64;
// any other spelling (1.0, 1e3) is left to the general validator.
func integer(v any) (int64, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	s := string(num)
	if s == "" || s[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// accepts reports whether inst, arguments as Parse decodes them, is
// certainly valid.
func (f *flatObject) accepts(inst any) bool {
	obj, ok := inst.(map[string]any)
	if !ok {
		return false
	}
	for _, name := range f.required {
		if _, ok := obj[name]; !ok {
			return false
		}
	}
	for name, v := range obj {
		p, declared := f.props[name]
		switch {
		case !declared && f.closed, declared && p == nil:
			return false
		case declared && !p.accepts(v):
			return false
		}
	}
	return true
}

func (p *flatProp) accepts(v any) bool {
	switch p.typ {
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		n, ok := integer(v)
		return ok && (!p.hasMin || n >= p.minimum) && (!p.hasMax || n <= p.maximum)
	}
	s, ok := v.(string)
	if !ok {
		return false
	}
	if p.enum != nil && !contains(p.enum, s) {
		return false
	}
	if p.minLen >= 0 || p.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if n < p.minLen || p.maxLen >= 0 && n > p.maxLen {
			return false
		}
	}
	return p.pattern == nil || p.pattern.MatchString(s)
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
