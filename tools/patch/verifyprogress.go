package patch

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
)

// verifyBeat is how often a verify run reports progress when its check
// prints nothing. A check can be silent for minutes (go test of a slow
// package prints nothing until it ends), and a client that hears nothing
// for its request timeout (60 seconds for the TypeScript SDK's) gives up
// on the call: the beat keeps it waiting.
const verifyBeat = time.Second

// checkScale is the time in which progress within a check reaches half
// of the check: it nears the check's end, and never reaches it, however
// long the check runs.
const checkScale = 30 * time.Second

// verifyProgress turns a verify run into progress reports for the caller:
// counted in checks, a check that has run for d adding d/(d+checkScale)
// (the first check's clock starts with the export), with the check's name
// and the tail of its output as the message.
type verifyProgress struct {
	req   *server.Request
	names string // the checks of the run

	// mu orders the reports: the checker's hook and the beat both send.
	mu          sync.Mutex
	started     bool // the first check has started: the export is over
	running     bool // a check runs; otherwise done checks have ended
	check, tail string
	done, total int
	checkStart  time.Time
}

// reportVerify starts reporting a run of specs to the caller of req. The
// checker tells the returned hook of each check (verify.WithProgress);
// stop ends the beat (and may be called again).
func reportVerify(req *server.Request, specs []verify.Spec) (hook verify.Progress, stop func()) {
	p := &verifyProgress{req: req, names: checkNames(specs), total: len(specs), checkStart: time.Now()}
	p.report()
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
				p.report()
			}
		}
	})
	var once sync.Once
	return p.hook, func() {
		once.Do(func() {
			close(quit)
			wg.Wait()
		})
	}
}

// checkNames names the checks of a run.
func checkNames(specs []verify.Spec) string {
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// hook is the checker's verify.Progress. Its calls come in order: a
// check's start, its output, its end (done counting it).
func (p *verifyProgress) hook(check string, done, total int, tail string) {
	p.mu.Lock()
	p.total = total
	switch {
	case !p.running: // a check starts
		if p.started {
			p.checkStart = time.Now()
		}
		p.started, p.running = true, true
		p.check, p.done, p.tail = check, done, ""
	case done > p.done: // it ended
		p.running, p.done, p.tail = false, done, ""
	case tail != "":
		p.tail = tail
	}
	p.mu.Unlock()
	p.report()
}

// report sends where the run is: the checks done, the share of the
// running one, and its output so far.
func (p *verifyProgress) report() {
	p.mu.Lock()
	defer p.mu.Unlock()
	value, running := float64(p.done), time.Since(p.checkStart)
	if p.running || !p.started {
		value += float64(running) / float64(running+checkScale)
	}
	var msg string
	switch {
	case !p.started:
		msg = "exporting the tree for " + p.names
	case p.running:
		msg = fmt.Sprintf("%s (check %d of %d) running for %s", p.check, p.done+1, p.total, running.Round(time.Second))
	default:
		msg = fmt.Sprintf("%s done (%d of %d)", p.check, p.done, p.total)
	}
	if p.tail != "" {
		msg += "\n" + p.tail
	}
	// A report that does not advance (a beat between two checks) is
	// dropped by Progress.
	p.req.Progress(value, float64(p.total), msg)
}
