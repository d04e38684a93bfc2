package server

import "sync/atomic"

// warmStacks runs calls on goroutines kept from earlier calls.
//
// go-sdk runs each request on a goroutine of its own, which starts with a
// small stack: a tools/call's path through go-sdk, the middleware chain and
// the schema check grows it twice, and each growth copies the stack and
// adjusts every frame's pointers (7% of a small read's CPU). A goroutine
// that has run a call keeps its grown stack, so the call's work runs on one
// of those instead; go-sdk's goroutine waits for it, as it waited for the
// work itself. At most maxIdle of them wait for work; a burst of calls past
// that starts goroutines that end with it.
type warmStacks struct {
	maxIdle int32
	work    chan warmJob
	// idle counts the goroutines that will take a job from work, less
	// the jobs callers have claimed them for and not yet handed over. A
	// goroutine is counted before its caller learns its call is done, so
	// the next call of that caller always finds it.
	idle atomic.Int32
}

// warmJob is a call, and the channel closed once it has run.
type warmJob struct {
	f    func()
	done chan struct{}
}

// idleStacks is how many warm goroutines a server keeps waiting: the calls
// it runs at once in steady use, with some 32 KiB of stack each.
const idleStacks = 16

func newWarmStacks(maxIdle int) *warmStacks {
	return &warmStacks{maxIdle: int32(maxIdle), work: make(chan warmJob)}
}

// run calls f on a warm goroutine, or a new one when none is idle, and
// returns once f has.
func (w *warmStacks) run(f func()) {
	job := warmJob{f: f, done: make(chan struct{})}
	if w.claim() {
		w.work <- job
	} else {
		go w.serve(job)
	}
	<-job.done
}

// claim takes one idle goroutine for a job, if there is one.
func (w *warmStacks) claim() bool {
	for {
		n := w.idle.Load()
		if n == 0 {
			return false
		}
		if w.idle.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// stay counts the calling goroutine idle, unless maxIdle are already.
func (w *warmStacks) stay() bool {
	for {
		n := w.idle.Load()
		if n >= w.maxIdle {
			return false
		}
		if w.idle.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// serve runs job, then the jobs handed to it while it is one of the idle
// goroutines, and ends when there are maxIdle of them already.
func (w *warmStacks) serve(job warmJob) {
	for w.call(job) {
		job = <-w.work
	}
}

// call runs job and reports whether its goroutine stays to take another.
func (w *warmStacks) call(job warmJob) (kept bool) {
	ran := false
	defer func() {
		if !ran { // f ended the goroutine (runtime.Goexit)
			close(job.done)
		}
	}()
	job.f()
	ran = true
	kept = w.stay()
	close(job.done)
	return kept
}
