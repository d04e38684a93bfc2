package gonav

import (
	"context"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestDroppedProgramIsFreed: a program the service drops (Programs is
// 1, and a second revision is loaded) while its background build of the
// method index is under way is freed: the build ends, and holds it no
// longer.
func TestDroppedProgramIsFreed(t *testing.T) {
	repo := gitfixture.New(t)
	files := txtarFiles(t, "testdata/nav.txtar")
	first := repo.Commit(t, "first", files)
	files["circle/circle.go"] = gitfixture.Text(files["circle/circle.go"].Content + "\nfunc Unit() Circle { return Circle{R: 1} }\n")
	second := repo.Commit(t, "second", files)
	opts := testOptions(t)
	opts.Programs = 1
	c, sv := serve(t, repo.Dir, opts)
	started := make(chan struct{}, 2)
	sv.beforePrepare = func(ctx context.Context) {
		started <- struct{}{}
		<-ctx.Done() // a build that lasts until it is ended
	}
	navigate(t, c, map[string]any{"relation": "definition", "symbol": "shape.Total", "revision": first})
	<-started
	sv.mu.Lock()
	dropped := weak.Make(sv.progs[0].prog)
	sv.mu.Unlock()
	navigate(t, c, map[string]any{"relation": "definition", "symbol": "circle.Unit", "revision": second})
	// The build's goroutine ends once it sees its context canceled.
	for range 100 {
		if dropped.Value() == nil {
			break
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if dropped.Value() != nil {
		t.Error("the dropped program is still alive")
	}
	// The program kept answers implementations all the same: a query
	// builds what the held build did not.
	if out := navigate(t, c, map[string]any{"relation": "implementations", "symbol": "shape.Shape", "revision": second}); out.Total == 0 {
		t.Error("no implementations of shape.Shape")
	}
}
