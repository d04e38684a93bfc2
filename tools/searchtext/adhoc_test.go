package searchtext

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestAdhocTiming(t *testing.T) {
	dir := os.Getenv("ADHOC_REPO")
	if dir == "" {
		t.Skip("ADHOC_REPO unset")
	}
	sv, reg := newTestService(t, dir, t.TempDir())
	snap := testSnapshot(t, reg, "")
	t0 := time.Now()
	files, _, _ := listFiles(context.Background(), snap, &pathFilter{}, sv.opts.MaxFileBytes)
	t.Logf("list %d files: %v", len(files), time.Since(t0))
	rs, _ := sv.repo(snap.Workspace())
	t0 = time.Now()
	st, err := sv.build(context.Background(), rs, "w", blobsOf(files))
	t.Logf("build %v %v %v", time.Since(t0), st, err)
	t.Logf("index %+v", sv.ix.Stats())
	for _, p := range []string{"errors.New", "func main", "zzzyyyxxx", "Reader"} {
		t0 = time.Now()
		got, out := collect(t, sv, snap, SearchTextIn{Pattern: p, Mode: "regexp"})
		t.Logf("warm %q: %d lines %v %+v", p, len(got), time.Since(t0), out.Index)
	}
}
