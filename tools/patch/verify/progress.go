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
