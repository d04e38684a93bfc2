package jsonquote

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// marshal is encoding/json's quoting of s, with or without HTML escapes.
func marshal(t testing.TB, s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var cases = []string{
	"", "a", "plain ascii text longer than eight bytes",
	"a\"b", `back\slash`, "<&>", "x<y && y>z, eight+ bytes <",
	"\u2028", "line\u2029sep", "\xff", "\xe2\x80", "ok\xe2\x80\xa8x\xed\xa0\x80",
	"\x00\x01\x1f\x7f", "\b\f\n\r\t", "\tfunc main() {\n\t\tfmt.Println(\"héllo, 世界\")\n\t}\n",
	strings.Repeat("abcdefgh", 9) + "\n", "1234567\"", "12345678\\",
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, s := range cases {
		if got, want := string(Append(nil, s)), marshal(t, s, true); got != want {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
		if got, want := string(AppendText(nil, []byte(s))), marshal(t, s, false); got != want {
			t.Errorf("AppendText(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestPiecesMakeOneLiteral checks that a string escaped in pieces cut on
// character boundaries is the literal of the whole.
func TestPiecesMakeOneLiteral(t *testing.T) {
	pieces := []string{"header <x>\n", "````\n", "func f() {\n\treturn \"世界\"\n}\n", "````", "\n[note]"}
	b := []byte{'"'}
	for _, p := range pieces {
		b = AppendEscaped(b, p, false)
	}
	b = append(b, '"')
	if want := marshal(t, strings.Join(pieces, ""), false); string(b) != want {
		t.Errorf("pieces = %s, want %s", b, want)
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(Append(nil, s)), marshal(t, s, true); got != want {
			t.Errorf("Append(%q) = %s, want %s", s, got, want)
		}
		if got, want := string(AppendText([]byte("x"), []byte(s))), "x"+marshal(t, s, false); got != want {
			t.Errorf("AppendText(%q) = %s, want %s", s, got, want)
		}
	})
}

// goSource is a MiB of the standard library's source.
func goSource(b *testing.B) []byte {
	data, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skip("no Go source to read:", err)
	}
	var src []byte
	for len(src) < 1<<20 {
		src = append(src, data...)
	}
	return src[:1<<20]
}

func BenchmarkAppendText(b *testing.B) {
	src := goSource(b)
	buf := make([]byte, 0, 2<<20)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		buf = AppendText(buf[:0], src)
	}
}

func BenchmarkEncoderNoHTML(b *testing.B) {
	src := string(goSource(b))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		buf.Reset()
		enc.Encode(src)
	}
}

// TestChunksKeepCharacters escapes text into buffers with every amount of
// room from none to plenty: the text is then escaped in chunks that end
// wherever the room does, and a chunk that cut a character would turn it
// into U+FFFD.
func TestChunksKeepCharacters(t *testing.T) {
	s := strings.Repeat("x\"世界\u2028\t\xffé<", 40)
	want := marshal(t, s, false)
	for room := range 300 {
		for lead := range 3 {
			b := make([]byte, lead, lead+room)
			got := string(AppendText(b, s)[lead:])
			if got != want {
				t.Fatalf("with %d bytes of room after %d: %s, want %s", room, lead, got, want)
			}
		}
	}
}
