package client

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/bufpool"
)

func readAllFrames(t testing.TB, input string, max, keep int) ([]frame, error) {
	fr := newFrameReader(strings.NewReader(input), max, keep, nil)
	fr.tailKeep = 8
	var frames []frame
	for {
		f, err := fr.next()
		if err != nil {
			return frames, err
		}
		if !f.oversized {
			f.line = bytes.Clone(f.line)
		}
		frames = append(frames, f)
	}
}

func TestFrameReader(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // line, or "!size head tail" for an oversized frame
	}{
		{"empty", "", nil},
		{"one", "{}\n", []string{"{}"}},
		{"crlf", "{}\r\n[]\n", []string{"{}", "[]"}},
		{"last without newline", "a\nb", []string{"a", "b"}},
		{"blank lines", "\n\na\n", []string{"", "", "a"}},
		{"exactly max", "0123456789\n", []string{"0123456789"}},
		{"over max", "0123456789A\nok\n", []string{"!11 0123 3456789A", "ok"}},
		{"oversized last", "abcdefghijklmnopqrstuvwxyz", []string{"!26 abcd stuvwxyz"}},
		{"oversized then small", strings.Repeat("x", 100) + "y\nz\n", []string{"!101 xxxx xxxxxxxy", "z"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frames, err := readAllFrames(t, tt.input, 10, 4)
			if !errors.Is(err, io.EOF) {
				t.Fatalf("error %v; want EOF", err)
			}
			var got []string
			for _, f := range frames {
				if f.oversized {
					got = append(got, "!"+strconv.FormatInt(f.size, 10)+" "+string(f.head)+" "+string(f.tail))
				} else {
					got = append(got, string(f.line))
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("frames %q; want %q", got, tt.want)
			}
		})
	}
}

func TestOversizedID(t *testing.T) {
	tests := []struct {
		head, tail string
		id         int64
		ok         bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"AAA`, `AAA"}]}}`, 7, true},
		{`{"id": 12 , "result":"xx`, ``, 12, true},
		{`{"result":{"content":[{"text":"AAA`, `AAA"}]},"jsonrpc":"2.0","id":9}`, 9, true},
		{`{"result":{"content":[{"text":"AAA`, `AAA"}]},"jsonrpc":"2.0","id":9}` + "\r", 9, true},
		{`{"jsonrpc":"2.0","id":"7","result":"x`, `x"}`, 0, false},
		{`{"result":{"id":3,"text":"AAA`, `AAA"}}`, 0, false},
		{`{"result":"AAA`, `AAA","nested":{"id":4}}`, 0, false},
		{`[1,2`, `3]`, 0, false},
		{`not json`, ``, 0, false},
		{`{"jsonrpc":"2.0","method":"sampling/createMessage","params":{"x":"AAA`, `AAA"},"id":5}`, 0, false},
		{`{"id":5,"method":"roots/list","params":"AAA`, `AAA"}`, 0, false},
	}
	for _, tt := range tests {
		id, ok := oversizedID([]byte(tt.head), []byte(tt.tail))
		if id != tt.id || ok != tt.ok {
			t.Errorf("oversizedID(%q, %q) = %d, %v; want %d, %v", tt.head, tt.tail, id, ok, tt.id, tt.ok)
		}
	}
}

// TestFrameOwned checks that a frame whose buffer the reader hands over stays
// intact while the next frames are read, as the results that alias it rely on.
func TestFrameOwned(t *testing.T) {
	large := strings.Repeat("L", maxReusedBuf+1)
	small := strings.Repeat("s", 100)
	fr := newFrameReader(strings.NewReader(small+"\n"+large+"\n"+small+"\n"+large+"\n"), 4<<20, 100, nil)
	var owned [][]byte
	for i := range 4 {
		f, err := fr.next()
		if err != nil {
			t.Fatal(err)
		}
		if want := len(f.line) > maxReusedBuf; f.owned != want {
			t.Fatalf("frame %d of %d bytes: owned %v; want %v", i, len(f.line), f.owned, want)
		}
		if f.owned {
			owned = append(owned, f.line)
		}
	}
	for _, line := range owned {
		if string(line) != large {
			t.Errorf("an owned frame changed after later reads")
		}
	}
}

func TestDecodeMessage(t *testing.T) {
	tests := []struct {
		line string
		kind messageKind
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, kindResponse},
		{`{"result":{},"jsonrpc":"2.0","id":1}`, kindResponse},
		{`{"jsonrpc":"2.0","id":1,"result":null}`, kindResponse},
		{`{"jsonrpc":"2.0","id":"1","error":{"code":-1,"message":"x"}}`, kindResponse},
		{`{"jsonrpc":"2.0","id":0,"method":"roots/list"}`, kindRequest},
		{`{"jsonrpc":"2.0","method":"notifications/x"}`, kindNotification},
		{`{"jsonrpc":"2.0","id":null,"method":"x"}`, kindNotification},
		{`{"jsonrpc":"2.0","id":1}`, kindMalformed},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, kindMalformed},
		{`42`, kindMalformed},
		{`{"id":1,"result":`, kindNotJSON},
		{`hello`, kindNotJSON},
	}
	for _, tt := range tests {
		if _, kind := decodeMessage([]byte(tt.line)); kind != tt.kind {
			t.Errorf("decodeMessage(%s) = %d; want %d", tt.line, kind, tt.kind)
		}
	}
}

// FuzzFrameReader checks that any byte stream splits into frames that account
// for every byte, that no kept frame exceeds the limit, that oversized frames
// keep bounded heads and tails, and that decoding any frame does not panic.
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"), 16)
	f.Add([]byte("a\r\nbb\n\nccccccccccccccccccccccccc\nd"), 4)
	f.Add([]byte(`{"result":"xxxxxxxxxxxxxxxxxxxx","id":3}`+"\n"), 8)
	f.Fuzz(func(t *testing.T, input []byte, max int) {
		max = 1 + int(uint(max)%64)
		keep := 1 + max/2
		fr := newFrameReader(bytes.NewReader(input), max, keep, nil)
		var total int64
		var n int
		for {
			fm, err := fr.next()
			if err != nil {
				break
			}
			n++
			total += fm.size
			if fm.oversized {
				if fm.size <= int64(max) || len(fm.head) != keep || len(fm.tail) > frameTailKeep {
					t.Fatalf("oversized frame: size %d, head %d, tail %d (max %d keep %d)", fm.size, len(fm.head), len(fm.tail), max, keep)
				}
				oversizedID(fm.head, fm.tail)
				continue
			}
			if len(fm.line) > max || int64(len(fm.line)) > fm.size {
				t.Fatalf("frame of %d bytes (size %d) exceeds max %d", len(fm.line), fm.size, max)
			}
			if m, kind := decodeMessage(fm.line); kind == kindResponse {
				parseID(m.ID)
			}
		}
		newlines := int64(bytes.Count(input, []byte("\n")))
		if total+newlines != int64(len(input)) {
			t.Fatalf("frames account for %d bytes + %d newlines; input is %d", total, newlines, len(input))
		}
		if want := int(newlines); n != want && n != want+1 {
			t.Fatalf("%d frames from %d newlines", n, newlines)
		}
	})
}

// TestLargeFrameGrowsByDoubling checks that a frame far larger than one
// read, its size unknown beforehand, is read with allocations in
// proportion to it, when its buffers come from a pool as when they do not:
// growing to each read's exact need would copy the frame each time, and
// growing by a quarter (append's rate) a few times. 1.2 MiB is a listing's
// page of 10,000 entries, which grows past maxReusedBuf.
func TestLargeFrameGrowsByDoubling(t *testing.T) {
	for _, size := range []int{1200 << 10, 16 << 20} {
		input := strings.Repeat("x", size) + "\n"
		for _, pool := range []*bufpool.Pool{nil, bufpool.New(keptFrames, maxKeptFrame)} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			f, err := newFrameReader(strings.NewReader(input), 32<<20, 100, pool).next()
			runtime.ReadMemStats(&after)
			if err != nil || len(f.line) != size {
				t.Fatalf("read %d bytes, %v", len(f.line), err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 4*uint64(size) {
				t.Errorf("pool %v: reading a %d KiB frame allocated %d KiB", pool != nil, size>>10, got>>10)
			}
		}
	}
}
