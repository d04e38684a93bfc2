package goindex

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestSmokeGOROOT(t *testing.T) {
	root, err := os.OpenRoot(runtime.GOROOT() + "/src")
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndexer(IndexerOptions{})
	t0 := time.Now()
	idx, err := ix.Index(context.Background(), NewDirSource(root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("build %v facts %+v names %d", time.Since(t0), idx.Facts(), len(idx.names))
	for _, q := range []string{"NewReader", "bufio.NewReader", "Reader.Read", "(*Server).Serve", "srvr", "NR", "net/http"} {
		t0 := time.Now()
		res, err := idx.Search(Query{Query: q, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%q: %v total %d", q, time.Since(t0), res.Total)
		for _, e := range res.Entries {
			t.Logf("   %s %s %s:%d:%d %s %q %q", e.Match, e.QualifiedName, e.File, e.Line, e.Column, e.Kind, e.Signature, e.Doc)
		}
	}
}
