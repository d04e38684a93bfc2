package searchtext

import (
	"slices"
	"testing"

	"github.com/repo-mcp/repo-mcp/tools/searchtext/textindex"
)

// TestContentCacheEvictsLeastRecent checks that a blob used since the
// last put survives the next eviction, however it was used.
func TestContentCacheEvictsLeastRecent(t *testing.T) {
	blob := func(c byte) textindex.Blob { return textindex.Blob{c} }
	for _, tt := range []struct {
		name string
		use  func(c *contentCache)
		kept []byte // of a to e after e is put
	}{
		{"none used", func(*contentCache) {}, []byte("bcde")},
		{"get", func(c *contentCache) { c.get(blob('a')) }, []byte("acde")},
		{"lookup", func(c *contentCache) { c.lookup([]textindex.Blob{blob('x'), blob('a')}) }, []byte("acde")},
		{"used twice", func(c *contentCache) { c.get(blob('b')); c.get(blob('a')); c.get(blob('b')) }, []byte("abde")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newContentCache(12) // four 3-byte blobs, a quarter of the bound each
			for _, b := range "abcd" {
				c.put(blob(byte(b)), []byte("xyz"))
			}
			tt.use(c)
			c.put(blob('e'), []byte("xyz"))
			var kept []byte
			for _, b := range []byte("abcde") {
				if _, ok := c.get(blob(b)); ok {
					kept = append(kept, b)
				}
			}
			if !slices.Equal(kept, tt.kept) {
				t.Errorf("kept %q, want %q", kept, tt.kept)
			}
		})
	}
}
