package visible

import (
	"encoding/json"
	"strings"
	"testing"
)

// hostile lists what a model, a server or a file may hold to act on the
// person who reads it, with how Text shows it.
var hostile = []struct{ name, in, text, line string }{
	{"plain", "rm -rf ~", "rm -rf ~", "rm -rf ~"},
	{"tab and newline", "a\tb\nc", "a\tb\nc", `a\x09b\x0ac`},
	{"NUL", "a\x00b", `a\x00b`, `a\x00b`},
	{"bell", "\a", `\x07`, `\x07`},
	{"carriage return", "safe\roverwritten", `safe\x0doverwritten`, `safe\x0doverwritten`},
	{"backspace", "x\b", `x\x08`, `x\x08`},
	{"form feed", "\f", `\x0c`, `\x0c`},
	{"unit separator", "\x1f", `\x1f`, `\x1f`},
	{"DEL", "a\x7f", `a\x7f`, `a\x7f`},
	{"SGR conceal", "\x1b[8mrm -rf ~\x1b[0m", `\x1b[8mrm -rf ~\x1b[0m`, `\x1b[8mrm -rf ~\x1b[0m`},
	{"cursor up", "ok\x1b[1A\x1b[2Kapproved", `ok\x1b[1A\x1b[2Kapproved`, `ok\x1b[1A\x1b[2Kapproved`},
	{"OSC title", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
	{"OSC 8 link", "\x1b]8;;https://evil\x1b\\x\x1b]8;;\x1b\\", `\x1b]8;;https://evil\x1b\x\x1b]8;;\x1b\`, `\x1b]8;;https://evil\x1b\x\x1b]8;;\x1b\`},
	{"C1 CSI", "\u009b31m", `<U+009B>31m`, `<U+009B>31m`},
	{"C1 NEL", "a\u0085b", `a<U+0085>b`, `a<U+0085>b`},
	{"C1 OSC", "\u009d0;x\u009c", `<U+009D>0;x<U+009C>`, `<U+009D>0;x<U+009C>`},
	{"LRE", "\u202a", "<U+202A>", "<U+202A>"},
	{"RLE", "\u202b", "<U+202B>", "<U+202B>"},
	{"PDF", "\u202c", "<U+202C>", "<U+202C>"},
	{"LRO", "\u202d", "<U+202D>", "<U+202D>"},
	{"RLO", "access\u202e/* admin */", "access<U+202E>/* admin */", "access<U+202E>/* admin */"},
	{"LRI", "\u2066", "<U+2066>", "<U+2066>"},
	{"RLI", "\u2067", "<U+2067>", "<U+2067>"},
	{"FSI", "\u2068", "<U+2068>", "<U+2068>"},
	{"PDI", "\u2069", "<U+2069>", "<U+2069>"},
	{"LRM", "\u200e", "<U+200E>", "<U+200E>"},
	{"RLM", "\u200f", "<U+200F>", "<U+200F>"},
	{"ALM", "\u061c", "<U+061C>", "<U+061C>"},
	{"line separator", "a\u2028b", "a<U+2028>b", "a<U+2028>b"},
	{"paragraph separator", "a\u2029b", "a<U+2029>b", "a<U+2029>b"},
	{"zero width space", "r\u200bm", "r<U+200B>m", "r<U+200B>m"},
	{"byte order mark", "\ufeffx", "<U+FEFF>x", "<U+FEFF>x"},
	{"tag characters", "ok\U000e0041\U000e0042", "ok<U+E0041><U+E0042>", "ok<U+E0041><U+E0042>"},
	{"invalid UTF-8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
	{"letters and symbols stay", "résumé 日本 ✓ 😀 →", "résumé 日本 ✓ 😀 →", "résumé 日本 ✓ 😀 →"},
	{"backslashes stay", `C:\x1b`, `C:\x1b`, `C:\x1b`},
}

func TestText(t *testing.T) {
	for _, tc := range hostile {
		if got := Text(tc.in); got != tc.text {
			t.Errorf("%s: Text(%q) = %q; want %q", tc.name, tc.in, got, tc.text)
		}
		if got := Line(tc.in); got != tc.line {
			t.Errorf("%s: Line(%q) = %q; want %q", tc.name, tc.in, got, tc.line)
		}
		if got := Text(Text(tc.in)); got != tc.text {
			t.Errorf("%s: Text is not idempotent: %q", tc.name, got)
		}
		for _, r := range Line(tc.in) {
			if Unsafe(r) || r == 0xfffd && !strings.ContainsRune(tc.in, r) {
				t.Errorf("%s: Line(%q) still holds %U", tc.name, tc.in, r)
			}
		}
	}
}

func TestJSON(t *testing.T) {
	for _, tc := range hostile {
		enc, err := json.Marshal(map[string]string{"text": tc.in})
		if err != nil {
			t.Fatal(err)
		}
		got := JSON(append(enc, '\n'))
		if strings.Count(string(got), "\n") != 1 || got[len(got)-1] != '\n' {
			t.Errorf("%s: %q is not one line", tc.name, got)
		}
		for _, r := range string(got[:len(got)-1]) {
			if Unsafe(r) {
				t.Errorf("%s: JSON left %U raw in %q", tc.name, r, got)
			}
		}
		var back map[string]string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%s: %q: %v", tc.name, got, err)
		}
		if want := strings.ToValidUTF8(tc.in, "\ufffd"); back["text"] != want {
			t.Errorf("%s: decodes to %q; want %q", tc.name, back["text"], want)
		}
	}
}

func TestUnchangedIsNotCopied(t *testing.T) {
	b := []byte(`{"a":"plain"}`)
	if got := JSON(b); &got[0] != &b[0] {
		t.Error("JSON copied text that needs no escape")
	}
}

func BenchmarkText(b *testing.B) {
	s := strings.Repeat("an ordinary line of a result, with nothing to escape\n", 300)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Text(s)
	}
}
