package goindex

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// slowSource holds files in memory and takes a second to read each, so
// that a build lasts long enough for its progress to be polled. Its files
// are the root's, in lexical order.
type slowSource struct {
	files map[string]string
	rev   string
}

func (s slowSource) Revision() string { return s.rev }

func (s slowSource) Walk(ctx context.Context, fn func(File) error) error {
	for _, name := range slices.Sorted(maps.Keys(s.files)) {
		if err := fn(File{Path: name, Size: int64(len(s.files[name]))}); err != nil {
			return err
		}
	}
	return nil
}

func (s slowSource) ReadFile(ctx context.Context, f File) ([]byte, error) {
	time.Sleep(time.Second)
	return []byte(s.files[f.Path]), nil
}

type report struct{ done, total int }

// TestSearchProgress checks that a search waiting for a build is told its
// counts as it goes, for a working tree (built by the search itself) and
// for a revision (built by a shared flight), and nothing when the index is
// ready.
func TestSearchProgress(t *testing.T) {
	const files = 5
	contents := make(map[string]string)
	for i := range files {
		contents[fmt.Sprintf("f%d.go", i)] = fmt.Sprintf("package p\n\nfunc F%d() {}\n", i)
	}
	for _, rev := range []string{"", "0123456789012345678901234567890123456789"} {
		t.Run("revision "+rev, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ix := NewIndexer(IndexerOptions{Workers: 1})
				src := slowSource{files: contents, rev: rev}
				var got []report
				q := Query{Query: "F", Progress: func(done, total int) { got = append(got, report{done, total}) }}
				res, err := ix.Search(context.Background(), src, Options{}, q)
				if err != nil {
					t.Fatal(err)
				}
				if res.Total != files {
					t.Fatalf("found %d declarations, want %d", res.Total, files)
				}
				if len(got) < files-1 {
					t.Fatalf("reports %v: want one about every second of a %d-second build", got, files)
				}
				for i, r := range got {
					if r.total != files || r.done < 1 || r.done > files || (i > 0 && r.done <= got[i-1].done) {
						t.Errorf("report %d: %+v of %v; want increasing counts of %d files", i, r, got, files)
					}
				}
				if rev == "" {
					return
				}
				got = nil
				if _, err := ix.Search(context.Background(), src, Options{}, q); err != nil || len(got) > 0 {
					t.Errorf("search of a ready index: error %v, reports %v; want none", err, got)
				}
			})
		})
	}
}
