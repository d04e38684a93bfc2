package workspace

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// zlibStream compresses data at a level of compress/flate's (stored,
// fixed or dynamic blocks, Huffman only).
func zlibStream(t testing.TB, data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// flateHead is what compress/zlib decodes of the first max bytes of stream.
func flateHead(stream []byte, max int) []byte {
	zr, err := zlib.NewReader(bytes.NewReader(stream))
	if err != nil {
		return nil
	}
	out := make([]byte, max)
	n, _ := io.ReadFull(zr, out)
	return out[:n]
}

// checkHead compares inflateHead with compress/zlib on stream: where
// inflateHead answers, its bytes are what zlib decodes. zlib is given the
// stream with zeros after it: at the end of its input it waits for as
// many bits as its shortest code takes, and so may stop a symbol before
// inflateHead, which needs only the bits of the code at hand.
func checkHead(t *testing.T, stream []byte, max int) {
	t.Helper()
	out := make([]byte, max)
	n, err := inflateHead(stream, out)
	if errors.Is(err, errInflateHead) {
		return // left to compress/flate
	}
	want := flateHead(append(bytes.Clone(stream), make([]byte, 8)...), max)
	got := out[:n]
	if err == nil && !bytes.Equal(got, want) || err != nil && !bytes.HasPrefix(want, got) {
		t.Fatalf("inflateHead(%x, %d) = %x (%v), zlib gives %x", stream, max, got, err, want)
	}
}

func TestInflateHeadMatchesZlib(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := [][]byte{
		{}, []byte("a"), []byte("\x92\x01\xa0\x01\x90\x05"),
		[]byte(strings.Repeat("abc", 100)),
		[]byte(strings.Repeat("line of text that repeats\n", 400)),
	}
	noise := make([]byte, 5000)
	for i := range noise {
		noise[i] = byte(rng.IntN(256))
	}
	texts = append(texts, noise)
	skewed := make([]byte, 5000) // long codes: a few symbols frequent, many rare
	for i := range skewed {
		skewed[i] = byte(rng.ExpFloat64() * 8)
	}
	texts = append(texts, skewed)
	levels := []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression, flate.BestCompression, flate.HuffmanOnly}
	for _, text := range texts {
		for _, level := range levels {
			stream := zlibStream(t, text, level)
			for _, max := range []int{1, 8, 20, 300} {
				out := make([]byte, max)
				n, err := inflateHead(stream, out)
				if err != nil {
					t.Fatalf("level %d, %d bytes of %.20q: %v", level, max, text, err)
				}
				if want := text[:min(max, len(text))]; !bytes.Equal(out[:n], want) {
					t.Fatalf("level %d: %x, want %x", level, out[:n], want)
				}
				for cut := range min(len(stream), 300) {
					checkHead(t, stream[:cut], max)
				}
			}
		}
	}
}

// TestInflateHeadRefusesWhatZlibRefuses damages streams a byte at a time:
// what inflateHead decodes of them, compress/zlib decodes the same.
func TestInflateHeadRefusesWhatZlibRefuses(t *testing.T) {
	text := []byte(strings.Repeat("func f() { return \"x\" }\n", 30))
	for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression, flate.HuffmanOnly} {
		stream := zlibStream(t, text, level)
		for i := range min(len(stream), 80) {
			for _, flip := range []byte{0x01, 0x02, 0x10, 0x80, 0xff} {
				damaged := bytes.Clone(stream)
				damaged[i] ^= flip
				checkHead(t, damaged, 20)
			}
		}
	}
}

func FuzzInflateHead(f *testing.F) {
	f.Add(zlibStream(f, []byte("\x92\x01\xa0\x01\x90\x05 delta"), flate.DefaultCompression), 20)
	f.Add(zlibStream(f, []byte(strings.Repeat("ab", 50)), flate.BestSpeed), 8)
	f.Add(zlibStream(f, []byte("stored"), flate.NoCompression), 20)
	f.Fuzz(func(t *testing.T, stream []byte, max int) {
		checkHead(t, stream, 1+max&63)
	})
}

// BenchmarkDeltaSize reads the sizes of the results of every delta of the
// benchmark corpus's packs from their starts, as a cold listing does
// ("flate": with compress/flate, as before inflateHead).
func BenchmarkDeltaSize(b *testing.B) {
	dir, _ := benchCorpus(b)
	reg, err := Open(Config{Workspaces: []WorkspaceConfig{{ID: "ws", Root: dir}}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	r := reg.workspaces["ws"].repo
	r.mu.Lock()
	pr := r.packsLocked()
	r.mu.Unlock()
	var deltas [][]byte
	for _, p := range pr.packs {
		for i := range p.index.count {
			off := idxOffsetAt(p.index, i)
			b0 := p.pack[off]
			if typ := b0 >> 4 & 7; typ != 6 {
				continue
			}
			_, used, _ := uvarint(p.pack[off:], b0&0xf, 4)
			_, skip, _ := ofsDeltaOffset(p.pack, off+int64(used))
			at := off + int64(used+skip)
			deltas = append(deltas, p.pack[at:min(off+headerBytes, int64(len(p.pack)))])
		}
	}
	b.Logf("%d deltas", len(deltas))
	b.Run("head", func(b *testing.B) {
		for b.Loop() {
			for _, d := range deltas {
				pr.deltaSize(d) // a few need more than the header's bytes
			}
		}
	})
	b.Run("flate", func(b *testing.B) {
		for b.Loop() {
			for _, d := range deltas {
				zr, _ := pr.inflater(d)
				var out [20]byte
				io.ReadFull(zr, out[:])
			}
		}
	})
}

// idxOffsetAt is the offset of the i-th object of a version 2 .idx.
func idxOffsetAt(x *packIndex, i int) int64 {
	at := idxFanout + 24*x.count + 4*i
	v := int64(x.data[at])<<24 | int64(x.data[at+1])<<16 | int64(x.data[at+2])<<8 | int64(x.data[at+3])
	return v
}
