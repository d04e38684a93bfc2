package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDecodeCall decodes tools/call responses as the reader and Call do
// together, from the frame to the *Result: with encoding/json three times
// (frame, result, blocks), as the client did, and in one pass.
func BenchmarkDecodeCall(b *testing.B) {
	source := goSource(b)
	frames := []struct {
		name  string
		frame []byte
	}{
		{"text-2KB", callFrame(b, source[:2<<10], nil)},
		{"text-64KB", callFrame(b, source[:64<<10], nil)},
		{"text-2MB", callFrame(b, source[:2<<20], nil)},
		listingFrame(b, 10000),
	}
	for _, f := range frames {
		b.Run(f.name+"/json", func(b *testing.B) {
			b.SetBytes(int64(len(f.frame)))
			for b.Loop() {
				m, kind := jsonDecodeMessage(f.frame)
				if kind != kindResponse {
					b.Fatalf("kind %d", kind)
				}
				if _, err := jsonParseResult(m.Result); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(f.name+"/onepass", func(b *testing.B) {
			b.SetBytes(int64(len(f.frame)))
			// The reader hands over the buffer of a frame over maxReusedBuf
			// and copies the result of a smaller one.
			owned := len(f.frame) > maxReusedBuf
			for b.Loop() {
				m, kind := decodeMessage(f.frame)
				if kind != kindResponse {
					b.Fatalf("kind %d", kind)
				}
				raw := m.Result
				if !owned {
					raw = bytes.Clone(raw)
				}
				if _, err := m.call.result(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// goSource returns at least 2 MiB of Go source: this package's, repeated.
func goSource(b *testing.B) string {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		b.Fatalf("no Go files: %v", err)
	}
	var src []byte
	for len(src) < 2<<20 {
		for _, name := range files {
			data, err := os.ReadFile(name)
			if err != nil {
				b.Fatal(err)
			}
			src = append(src, data...)
		}
	}
	return string(src)
}

// callFrame encodes a tools/call response as a Go server does: a text block
// and, optionally, structuredContent.
func callFrame(b *testing.B, text string, structured any) []byte {
	type block struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type result struct {
		Content           []block `json:"content"`
		StructuredContent any     `json:"structuredContent,omitempty"`
	}
	frame, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Result  result `json:"result"`
	}{"2.0", 7, result{[]block{{"text", text}}, structured}})
	if err != nil {
		b.Fatal(err)
	}
	return frame
}

// listingFrame is a list_files page of n entries with sizes (sizes: true):
// one line per entry as text, and the entries as structuredContent.
func listingFrame(b *testing.B, n int) struct {
	name  string
	frame []byte
} {
	type entry struct {
		Path string `json:"path"`
		Type string `json:"type"`
		Size int64  `json:"size"`
		Mode string `json:"mode"`
	}
	entries := make([]entry, n)
	var text bytes.Buffer
	fmt.Fprintf(&text, "/ at 0123456789abcdef0123456789abcdef01234567: %d of %d entries\n", n, n)
	for i := range entries {
		e := entry{Path: fmt.Sprintf("src/pkg%03d/sub/file_%05d_test.go", i/100, i), Type: "file", Size: int64(i * 37 % 50000), Mode: "100644"}
		entries[i] = e
		fmt.Fprintf(&text, "%s\t%d\n", e.Path, e.Size)
	}
	structured := map[string]any{"revision": "0123456789abcdef0123456789abcdef01234567", "path": "", "entries": entries, "total": n, "truncated": false, "omitted": 0, "invalid": 0}
	return struct {
		name  string
		frame []byte
	}{fmt.Sprintf("listing-%d", n), callFrame(b, text.String(), structured)}
}
