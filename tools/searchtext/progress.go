package searchtext

import (
	"log/slog"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
)

// progressInterval is the least time between two progress reports.
const progressInterval = time.Second

// progress reports how far the matching of one search is, at most once a
// second, so that a search that scans (a revision the index does not know
// yet) is seen to move.
type progress struct {
	log   *slog.Logger
	req   *server.Request
	total int

	mu   sync.Mutex
	done int
	last time.Time
}

func newProgress(sv *Service, req *server.Request, total int) *progress {
	return &progress{log: sv.log, req: req, total: total, last: time.Now()}
}

func (p *progress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if time.Since(p.last) < progressInterval {
		return
	}
	p.last = time.Now()
	// PROGRESS: the log stands in for notifications/progress until
	// server/ carries them (req.Progress); switch this call then.
	p.log.Info("search_text: matching", "request_id", p.req.ID, "files_done", p.done, "files_total", p.total)
}
