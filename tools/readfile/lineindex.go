package readfile

import (
	"bytes"
	"sort"
	"sync"
)

// lineIndex numbers the lines of a text by chunks of lineChunk bytes:
// entry i is the number of newlines before byte i*lineChunk, and the last
// entry is the number in the whole text. A page of a large file is found
// from it by a binary search and a walk through one chunk, and the file's
// line count is its last entry: a page costs its own size, not a scan of
// the file up to it.
type lineIndex []int

// newLineIndex counts the newlines of data, a chunk at a time.
func newLineIndex(data []byte) lineIndex {
	x := make(lineIndex, 1, len(data)/lineChunk+2)
	for pos := 0; pos < len(data); pos += lineChunk {
		chunk := data[pos:min(len(data), pos+lineChunk)]
		x = append(x, x[len(x)-1]+bytes.Count(chunk, []byte("\n")))
	}
	return x
}

// newlines is the number of newlines in the text.
func (x lineIndex) newlines() int { return x[len(x)-1] }

// lineStart returns the offset of line n (from 1) of data, the text x
// indexes, which holds at least n-1 newlines.
func (x lineIndex) lineStart(data []byte, n int) int {
	if n <= 1 {
		return 0
	}
	// The chunk that holds the newline ending line n-1.
	c := sort.Search(len(x)-1, func(c int) bool { return x[c+1] >= n-1 })
	pos := c * lineChunk
	return pos + lineStart(data[pos:], n-x[c])
}

const (
	// indexedBytes is the size from which a text's index is kept: a
	// smaller text is counted again at each read, which costs little.
	indexedBytes = 256 << 10
	// keptLineIndexes is how many indexes read_file keeps: the large
	// files being paged through at once.
	keptLineIndexes = 64
)

// lineIndexes keeps the indexes of the large texts read last, by blob, so
// that each page of a file read in pages does not count its lines again.
// It holds at most max of them; an index is a few KiB at most (a 16 MiB
// text has 257 entries). It is safe for concurrent use.
type lineIndexes struct {
	max int

	mu    sync.Mutex
	byKey map[lineKey]lineIndex
	order []lineKey // insertion order, oldest first
}

// lineKey names a text by its blob and length: a read cut at the read
// limit indexes the blob's first part only.
type lineKey struct {
	sha  string
	size int
}

func newLineIndexes(max int) *lineIndexes {
	return &lineIndexes{max: max, byKey: make(map[lineKey]lineIndex)}
}

// index returns the index of data, the text of blob sha (or of its first
// part): the one kept, or a new one, kept when data is large and its blob
// known.
func (l *lineIndexes) index(sha string, data []byte) lineIndex {
	if l == nil || sha == "" || len(data) < indexedBytes {
		return newLineIndex(data)
	}
	k := lineKey{sha, len(data)}
	l.mu.Lock()
	x, ok := l.byKey[k]
	l.mu.Unlock()
	if ok {
		return x
	}
	x = newLineIndex(data)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.byKey[k]; !ok {
		if len(l.order) >= l.max {
			delete(l.byKey, l.order[0])
			l.order = l.order[1:]
		}
		l.byKey[k] = x
		l.order = append(l.order, k)
	}
	return x
}
