package server

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// GeneratedSchema is a tool's pair of schemas as [Register] derives them
// from the tool's types, kept in the program's source so that a new
// process need not derive them again: reflecting two dozen schemas was a
// fifth of a server's work before its first answer. [Server.Schemas]
// makes them; [Options.Schemas] hands them back.
type GeneratedSchema struct {
	// Types identifies what the schemas were derived from: the input and
	// output types' fields, tags and Comments. Register uses the schemas
	// only while its types give the same value.
	Types string
	// Input and Output are the schemas' JSON, as [json.Marshal] writes
	// them.
	Input, Output string
}

// schemaDoc is one of a tool's schemas, held in the form it came in and
// made into the other on first use: a map reflected from a Go type is
// marshalled when a client lists the tools or the validator compiles it,
// and JSON generated ahead of time is decoded only where a map is asked
// for ([Server.Tools], a schema that names an HTTP header).
type schemaDoc struct {
	m       map[string]any // reflected; nil when generated
	src     string         // generated; "" when reflected
	marshal func() ([]byte, error)
	decode  func() map[string]any
}

func mapDoc(m map[string]any) *schemaDoc {
	return &schemaDoc{m: m, marshal: sync.OnceValues(func() ([]byte, error) { return json.Marshal(m) })}
}

// jsonDoc returns the schema src holds. Its bytes are copied out of the
// string only when asked for, most of them never in a short process.
func jsonDoc(src string) *schemaDoc {
	return &schemaDoc{
		src:     src,
		marshal: sync.OnceValues(func() ([]byte, error) { return []byte(src), nil }),
		decode: sync.OnceValue(func() map[string]any {
			var m map[string]any
			if err := json.Unmarshal([]byte(src), &m); err != nil {
				return nil // JSON's users (tools/list, the validator) say why
			}
			return m
		}),
	}
}

// Map returns the schema as json.Unmarshal gives it; nil if generated
// JSON does not decode.
func (d *schemaDoc) Map() map[string]any {
	if d.m != nil {
		return d.m
	}
	return d.decode()
}

// JSON returns the schema's JSON.
func (d *schemaDoc) JSON() ([]byte, error) { return d.marshal() }

// wire returns the schema as a tool on the wire holds it: a value whose
// JSON is the schema's, made when a client first lists the tools, which
// the first call of a new process does not wait for.
func (d *schemaDoc) wire() json.Marshaler { return wireSchema{d} }

type wireSchema struct{ d *schemaDoc }

func (w wireSchema) MarshalJSON() ([]byte, error) { return w.d.JSON() }

// hasHeaderAnnotation reports whether the schema has an x-mcp-header
// annotation at any depth. Generated JSON without the key is not decoded
// to find out.
func (d *schemaDoc) hasHeaderAnnotation() bool {
	if d.m == nil && !strings.Contains(d.src, `"x-mcp-header"`) {
		return false
	}
	return hasHeaderAnnotation(d.Map())
}

// generated returns s's schemas for a tool named name with types in and
// out, unless Options.Schemas has none or has them for types that have
// changed since: the caller then derives them.
func (s *Server) generated(name string, in, out reflect.Type, comments map[string]string) (input, output *schemaDoc, ok bool) {
	g, ok := s.opts.Schemas[name]
	if !ok {
		return nil, nil, false
	}
	if g.Types != schemaTypes(in, out, comments) {
		s.log.Warn("generated schemas are stale; deriving them from the tool's types (run go generate)", "tool", name)
		return nil, nil, false
	}
	return jsonDoc(g.Input), jsonDoc(g.Output), true
}

// schemaTypes returns [GeneratedSchema.Types] for a tool whose input is
// in and output out: a digest of every struct field's name, tags and type
// that the schemas could depend on, and of their Comments. Walking the
// types this way costs a small part of what reflecting the schemas does.
func schemaTypes(in, out reflect.Type, comments map[string]string) string {
	w := typeWriter{h: sha256.New(), comments: comments}
	w.typ(in, nil)
	w.str("output")
	w.typ(out, nil)
	return hex.EncodeToString(w.h.Sum(nil)[:16])
}

// typeWriter writes what schemaTypes digests to h, each string preceded
// by its length so that no two walks write the same bytes. The digest
// reads them as they come (the comments alone are tens of kilobytes),
// through one buffer: a string written to it directly would be copied.
type typeWriter struct {
	h        hash.Hash
	buf      []byte
	comments map[string]string
}

func (w *typeWriter) uint(n uint64) {
	w.buf = binary.AppendUvarint(w.buf[:0], n)
	w.h.Write(w.buf)
}

func (w *typeWriter) str(s string) {
	w.buf = binary.AppendUvarint(w.buf[:0], uint64(len(s)))
	w.buf = append(w.buf, s...)
	w.h.Write(w.buf)
}

// comment writes the comment of the named type t, or of its field when
// field is not empty.
func (w *typeWriter) comment(t reflect.Type, field string) {
	w.buf = append(append(append(w.buf[:0], t.PkgPath()...), '.'), t.Name()...)
	if field != "" {
		w.buf = append(append(w.buf, '.'), field...)
	}
	w.str(w.comments[string(w.buf)])
}

// typ writes t: its kind, its name when it has one, and what it is made
// of. seen holds the struct types being written, for recursive types
// (which Register refuses; their Types must still be finite).
func (w *typeWriter) typ(t reflect.Type, seen []reflect.Type) {
	named := t.Name() != ""
	w.uint(uint64(t.Kind()))
	w.str(t.PkgPath())
	w.str(t.Name())
	if named {
		w.comment(t, "")
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		w.typ(t.Elem(), seen)
	case reflect.Array:
		w.uint(uint64(t.Len()))
		w.typ(t.Elem(), seen)
	case reflect.Map:
		w.typ(t.Key(), seen)
		w.typ(t.Elem(), seen)
	case reflect.Struct:
		if t.Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(jsonMarshaler) {
			return // its schema does not come from its fields (see checkType)
		}
		if slices.Contains(seen, t) {
			return
		}
		seen = append(seen, t)
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue
			}
			w.str(f.Name)
			w.str(string(f.Tag))
			if f.Anonymous {
				w.uint(1)
			}
			if named {
				w.comment(t, f.Name)
			}
			w.typ(f.Type, seen)
		}
	}
}

// Schemas returns the registered tools' schemas, by tool name, in the form
// [Options.Schemas] takes back: a program writes them into its source (a
// go:generate step that registers its tools on a server without
// Options.Schemas) and hands them to [New] from then on.
func (s *Server) Schemas() (map[string]GeneratedSchema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]GeneratedSchema, len(s.tools))
	for name, r := range s.tools {
		in, err := r.input.JSON()
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", name, err)
		}
		outJSON, err := r.output.JSON()
		if err != nil {
			return nil, fmt.Errorf("tool %s: output schema: %w", name, err)
		}
		out[name] = GeneratedSchema{Types: r.types(), Input: string(in), Output: string(outJSON)}
	}
	return out, nil
}
