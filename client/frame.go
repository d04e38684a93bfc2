package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"slices"

	"github.com/repo-mcp/repo-mcp/internal/bufpool"
)

// A frame is one newline-terminated line of the server's stdout.
type frame struct {
	line  []byte // the frame without its newline; valid until the next read unless owned; nil when oversized
	owned bool   // line's buffer is never reused by the reader: line stays valid (see large)
	size  int64  // length of the frame without its newline

	oversized bool
	head      []byte // oversized: the first bytes (a copy)
	tail      []byte // oversized: the last bytes (a copy), where a trailing "id" would be
}

// frameReader splits a byte stream into frames of at most max bytes. A longer
// frame is read and discarded up to its newline, keeping its first keep bytes
// and its last tailKeep bytes, so memory stays bounded whatever the server sends.
type frameReader struct {
	r        *bufio.Reader
	max      int
	keep     int
	tailKeep int
	buf      []byte
	// small is the reader's own buffer, kept aside while buf is a large
	// one from large, and used again once that is handed over.
	small []byte
	// large gives the buffers of frames longer than maxReusedBuf, which
	// are handed over with the frame (owned), and takes them back once
	// their last user is done with them (Result.Release); nil: each is new.
	large *bufpool.Pool
	// recent are the sizes of the last two frames: a frame longer than
	// one read grows its buffer at once to the larger, since a server's
	// large answers (a listing's full pages between its last ones, say)
	// tend to come back in like sizes, and regrowing a buffer of megabytes
	// costs more than reading it.
	recent [2]int
}

const frameTailKeep = 256

// maxReusedBuf is the largest frame buffer reused for the next frame: the
// reader does not keep one large frame's buffer for the connection's life.
// A larger frame's buffer comes from the reader's pool (large) and goes
// with the frame.
const maxReusedBuf = 1 << 20

// newFrameReader reads frames from r; large (nil for none) gives the
// buffers of frames longer than maxReusedBuf.
func newFrameReader(r io.Reader, max, keep int, large *bufpool.Pool) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max, keep: min(keep, max), tailKeep: frameTailKeep, large: large}
}

// next returns the next frame. At the end of the stream a final frame without
// a newline is returned first; then the error (io.EOF or the read error).
func (fr *frameReader) next() (frame, error) {
	fr.buf = fr.buf[:0]
	var f frame
	for {
		chunk, err := fr.r.ReadSlice('\n')
		complete := err == nil
		if complete {
			chunk = chunk[:len(chunk)-1]
		}
		f.size += int64(len(chunk))
		switch {
		case !f.oversized && len(fr.buf)+len(chunk) <= fr.max:
			if need := len(fr.buf) + len(chunk); need > cap(fr.buf) && len(fr.buf) > 0 {
				fr.grow(max(need, fr.recent[0], fr.recent[1]))
			}
			fr.buf = append(fr.buf, chunk...)
		case !f.oversized:
			f.oversized = true
			f.head = make([]byte, 0, fr.keep)
			f.head = append(f.head, fr.buf[:min(len(fr.buf), fr.keep)]...)
			f.head = append(f.head, chunk[:min(len(chunk), fr.keep-len(f.head))]...)
			f.tail = keepTail(keepTail(nil, fr.buf, fr.tailKeep), chunk, fr.tailKeep)
			fr.buf = fr.buf[:0]
		default:
			f.tail = keepTail(f.tail, chunk, fr.tailKeep)
		}
		if complete {
			return fr.finish(f), nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if f.size > 0 {
			// A last frame without a newline: deliver it; the error comes next time.
			return fr.finish(f), nil
		}
		return frame{}, err
	}
}

// grow makes room in buf for n bytes: a buffer beyond maxReusedBuf comes
// from the pool (the reader's own is kept aside), a smaller one grows. A
// pooled buffer outgrown is left to the collector, not given back: the
// pool would fill with buffers too small for the frames that outgrow them
// (and hold 8 MiB after a 20 MiB frame was discarded).
func (fr *frameReader) grow(n int) {
	// At least double: a frame of unknown size grows a read (64 KiB) at a
	// time, and growing to each exact need would copy all of it each time
	// (a 16 MiB frame, 2 GB of copying), as growing by a quarter (append's
	// rate for a large slice) copied a 1.2 MiB frame four times over.
	n = max(n, 2*cap(fr.buf))
	if n <= maxReusedBuf {
		fr.buf = slices.Grow(fr.buf, n-len(fr.buf))
		return
	}
	if cap(fr.buf) <= maxReusedBuf {
		fr.small = fr.buf
	}
	fr.buf = append(fr.large.Get(n), fr.buf...)
}

func (fr *frameReader) finish(f frame) frame {
	fr.recent[0], fr.recent[1] = fr.recent[1], int(min(f.size, int64(fr.max)))
	if !f.oversized {
		f.line = bytes.TrimSuffix(fr.buf, []byte("\r"))
	}
	if cap(fr.buf) > maxReusedBuf {
		// The buffer goes with the frame: the reader takes its own back.
		// An oversized frame leaves its buffer unused; it goes back now.
		if f.oversized {
			fr.large.Put(fr.buf)
		}
		fr.buf, fr.small, f.owned = fr.small, nil, true
	}
	return f
}

// keepTail appends b to tail and keeps only the last n bytes.
func keepTail(tail, b []byte, n int) []byte {
	if len(b) >= n {
		return append(tail[:0], b[len(b)-n:]...)
	}
	tail = append(tail, b...)
	if len(tail) > n {
		tail = append(tail[:0], tail[len(tail)-n:]...)
	}
	return tail
}
