package jsonscan

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestValidity checks that the Scanner accepts exactly what
// json.Valid accepts, value by value, at any nesting.
func TestValidity(t *testing.T) {
	values := []string{
		`0`, `-0`, `1.5`, `1e5`, `1E-5`, `-12.34e+56`, `01`, `1.`, `.5`, `-`, `1e`, `+1`, `0x1`,
		`true`, `false`, `null`, `nul`, `True`, `"\u00"`, `"\uD800"`, "\"\x7f\"", "\"\x1f\"",
		`[]`, `[1,]`, `[,1]`, `{}`, `{"a":1,}`, `{"a"}`, `{1:2}`, `[1 2]`, `{"a":1 "b":2}`, `"a`, `[`, `{`,
	}
	for _, v := range values {
		for _, text := range []string{v, "[" + v + "]", `{"k":` + v + `}`, " " + v + " "} {
			d := NewScanner([]byte(text))
			got := d.Skip() && d.End()
			if want := json.Valid([]byte(text)); got != want {
				t.Errorf("Scanner accepts %q: %v; json.Valid: %v", text, got, want)
			}
		}
	}
}

// FuzzUnquote compares the decoding of one string with encoding/json's, by
// Str and Unquote and by StrValue.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`a\"b`, `\ud83d\ude00`, `\ud8000uDC00`, "\xff\\n", `\u2028`, "é\\u00e9"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		quoted := append(append([]byte{'"'}, body...), '"')
		var want string
		wantErr := json.Unmarshal(quoted, &want)
		d := NewScanner(quoted)
		raw, escaped, ok := d.Str()
		if ok = ok && d.End(); ok != (wantErr == nil) {
			t.Fatalf("%q: Scanner accepts it: %v; encoding/json: %v", quoted, ok, wantErr)
		}
		if got := Unquote(raw, escaped); ok && got != want {
			t.Fatalf("%q: decoded %q; encoding/json %q", quoted, got, want)
		}
		// StrValue, in one pass, within a longer text as a frame has it.
		d = NewScanner(append(quoted, `,"next"`...))
		got, ok := d.StrValue()
		if ok = ok && d.Pos() == len(quoted); ok != (wantErr == nil) || ok && got != want {
			t.Fatalf("%q: StrValue %q, %v at %d; encoding/json %q, %v", quoted, got, ok, d.Pos(), want, wantErr)
		}
		// Twice in one scan: the second string's buffer grows as it goes
		// when the first one's was sized for the rest of the data.
		if wantErr == nil {
			d = NewScanner(append(append(quoted, ' '), quoted...))
			first, ok1 := d.StrValue()
			d.SkipSpace()
			second, ok2 := d.StrValue()
			if !ok1 || !ok2 || first != want || second != want || !d.End() {
				t.Fatalf("%q twice: StrValue %q, %v then %q, %v; encoding/json %q", quoted, first, ok1, second, ok2, want)
			}
		}
	})
}

// TestStrValueManyEscapedStrings: a frame of many short strings, each
// with an escape, is read with memory in proportion to the frame, not a
// buffer the size of the rest of the frame for each string.
func TestStrValueManyEscapedStrings(t *testing.T) {
	const n = 2000
	data := []byte("[" + strings.Repeat(`"a\nb",`, n-1) + `"a\nb"]`)
	var got []string
	read := func() {
		got = got[:0]
		d := NewScanner(data)
		ok := d.Array(func() bool {
			s, ok := d.StrValue()
			got = append(got, s)
			return ok
		}) && d.End()
		if !ok || len(got) != n || got[0] != "a\nb" || got[n-1] != "a\nb" {
			t.Fatalf("read %d strings (first %q), ok %v", len(got), got[0], ok)
		}
	}
	got = make([]string, 0, n)
	read() // warm
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*uint64(len(data)) {
		t.Errorf("reading %d strings from %d bytes allocated %d bytes; want at most 8 times the data", n, len(data), alloc)
	}
}
