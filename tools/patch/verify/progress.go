package verify

import (
	"sync"
	"time"
)

// Progress receives a run's progress, for a caller that shows it while the
// checks run (an MCP progress notification, say). check is the check
// concerned; done of total checks have ended; tail is the last few lines
// of the check's output so far (at most [ProgressTailBytes], redacted like
// the result), "" when it has printed nothing new.
//
// It is called when a check starts, about once a second while the check
// prints, and when the check ends (done then counts it). Calls never
// overlap, and the last one for a check happens before the next check
// starts; a slow Progress delays the run, so it should return quickly.
type Progress func(check string, done, total int, tail string)

// ProgressTailBytes bounds the tail given to a [Progress].
const ProgressTailBytes = 1 << 10

// A RunOption changes one run of [Checker.Run].
type RunOption func(*runOptions)

type runOptions struct {
	progress Progress
	interval time.Duration
	secrets  [][]byte
	absent   []string
	// goRootExport: see WithGoRootExport.
	goRootExport bool
}

// WithSecrets has the output of the run's checks redacted of each of
// these contents: the whole of each, and each of its lines of six bytes or
// more, wherever they appear. A caller that exports files a secret pattern
// matches (test fixtures) names their contents here.
func WithSecrets(contents ...[]byte) RunOption {
	return func(o *runOptions) { o.secrets = append(o.secrets, contents...) }
}

// WithAbsent names host paths the checks must not see (the workspace, its
// .git directory); each check's probe tries them, and a visible one
// denies the run the Filesystem property.
func WithAbsent(paths ...string) RunOption {
	return func(o *runOptions) { o.absent = append(o.absent, paths...) }
}

// WithGoRootExport runs go with GOROOT set to the export, for an export
// that is a Go distribution's tree (its src/go.mod declares module std):
// the standard library is then the export's own, not the server's Go's,
// and an import of an internal package of it resolves as in the Go
// repository. The server's go command still runs. For what [Checker.GoList]
// reports (no -export, no -compiled) go needs nothing of a GOROOT but its
// src: no pkg/tool, no compiled packages.
func WithGoRootExport() RunOption {
	return func(o *runOptions) { o.goRootExport = true }
}

// WithProgress has p told of the run's progress.
func WithProgress(p Progress) RunOption {
	return func(o *runOptions) { o.progress = p }
}

// ticker reports a running check's output to a Progress about once an
// interval, until stopped.
type ticker struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

// startTicker calls report every interval until stop is called; it does
// nothing when p is nil.
func startTicker(p Progress, interval time.Duration, report func()) *ticker {
	t := &ticker{stop: make(chan struct{})}
	if p == nil {
		return t
	}
	t.wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-t.stop:
				return
			case <-tick.C:
				report()
			}
		}
	})
	return t
}

// halt stops the ticker and waits for a report in progress to end.
func (t *ticker) halt() {
	close(t.stop)
	t.wg.Wait()
}
