package patch

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
)

// verifyBeat is how often a verify run reports progress. Checks can run
// silently for minutes (a go test of a slow package prints nothing until
// it ends), and a client that hears nothing for its request timeout (60
// seconds for the TypeScript SDK's) gives up on the call: the beat keeps
// it waiting.
const verifyBeat = time.Second

// reportVerify reports the progress of a run of specs to the caller of
// req every verifyBeat until the returned stop is called, and the run's
// end then. Progress is
// counted in checks; within the run it advances with the share of the
// run's time bound (limit) used, the only measure the checker offers
// while its checks run.
func reportVerify(req *server.Request, specs []verify.Spec, limit time.Duration) (stop func()) {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	total := float64(len(specs))
	start := time.Now()
	beat := func() {
		elapsed := time.Since(start)
		share := min(elapsed.Seconds()/limit.Seconds(), 0.99)
		req.Progress(share*total, total, fmt.Sprintf("running %s: %s so far", strings.Join(names, ", "), elapsed.Round(time.Second)))
	}
	beat()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(verifyBeat)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				beat()
			}
		}
	})
	return func() {
		close(quit)
		wg.Wait()
		req.Progress(total, total, fmt.Sprintf("ran %s in %s", strings.Join(names, ", "), time.Since(start).Round(time.Millisecond)))
	}
}
