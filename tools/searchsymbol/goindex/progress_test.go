package goindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

// slowSource takes a second to read each file, so that a build lasts long
// enough for its progress to be polled.
type slowSource struct {
	Source
	rev string
}

func (s slowSource) Revision() string { return s.rev }

func (s slowSource) ReadFile(ctx context.Context, f File) ([]byte, error) {
	time.Sleep(time.Second)
	return s.Source.ReadFile(ctx, f)
}

type report struct{ done, total int }

// TestSearchProgress checks that a search waiting for a build is told its
// counts as it goes, for a working tree (built by the search itself) and
// for a revision (built by a shared flight), and nothing when the index is
// ready.
func TestSearchProgress(t *testing.T) {
	dir := t.TempDir()
	const files = 5
	for i := range files {
		src := fmt.Sprintf("package p\n\nfunc F%d() {}\n", i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, rev := range []string{"", "0123456789012345678901234567890123456789"} {
		t.Run("revision "+rev, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ix := NewIndexer(IndexerOptions{Workers: 1})
				src := slowSource{Source: NewDirSource(mustOpenRoot(t, dir)), rev: rev}
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

func mustOpenRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
