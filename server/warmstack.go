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
	maxIdle int
	work    chan func()
	idle    atomic.Int32 // goroutines waiting on work, or about to
}

// idleStacks is how many warm goroutines a server keeps waiting: the calls
// it runs at once in steady use, with some 32 KiB of stack each.
const idleStacks = 16

func newWarmStacks(maxIdle int) *warmStacks {
	return &warmStacks{maxIdle: maxIdle, work: make(chan func())}
}

// run calls f on a warm goroutine, or a new one when none is idle, and
// returns once f has.
func (w *warmStacks) run(f func()) {
	done := make(chan struct{})
	job := func() {
		defer close(done)
		f()
	}
	select {
	case w.work <- job:
	default:
		go w.serve(job)
	}
	<-done
}

// serve runs job, then the jobs handed to it while it is one of the idle
// goroutines, and ends when there are maxIdle of them already.
func (w *warmStacks) serve(job func()) {
	for {
		job()
		if int(w.idle.Add(1)) > w.maxIdle {
			w.idle.Add(-1)
			return
		}
		job = <-w.work
		w.idle.Add(-1)
	}
}
