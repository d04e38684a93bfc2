package metrics

import (
	"context"
	"log/slog"
	"time"
)

// The log records that are events to count: their messages are written by
// the tool packages (goindex, searchtext, patch), and TestScrape, which
// makes each happen through the real tools, fails if one changes.
const (
	symbolBuilt  = "goindex: built"
	symbolLoaded = "goindex: loaded from disk"
	textBuilt    = "text index: built"
	patchApply   = "patch apply"
)

// LogHandler returns a handler that passes every record next accepts on
// to it, and counts the index builds, cache hits and applies among all
// records, whatever their level (goindex logs its builds at debug level).
func (m *Metrics) LogHandler(next slog.Handler) slog.Handler {
	return &eventHandler{m: m, next: next}
}

type eventHandler struct {
	m    *Metrics
	next slog.Handler
}

func (h *eventHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *eventHandler) Handle(ctx context.Context, r slog.Record) error {
	h.m.count(r)
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h *eventHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &eventHandler{m: h.m, next: h.next.WithAttrs(as)}
}

func (h *eventHandler) WithGroup(name string) slog.Handler {
	return &eventHandler{m: h.m, next: h.next.WithGroup(name)}
}

// count updates the metrics a record is an event for.
func (m *Metrics) count(r slog.Record) {
	switch r.Message {
	case symbolBuilt:
		m.builds.add(1, "symbol")
	case symbolLoaded:
		m.cacheHits.add(1, "symbol")
	case textBuilt:
		m.builds.add(1, "text")
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "duration":
				if d, ok := a.Value.Any().(time.Duration); ok {
					m.buildTime.observe(d.Seconds(), "text")
				}
			case "bytes":
				if n := a.Value.Int64(); a.Value.Kind() == slog.KindInt64 && n > 0 {
					m.buildBytes.add(float64(n), "text")
				}
			}
			return true
		})
	case patchApply:
		target, outcome := "branch", ""
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "target":
				if v := a.Value.String(); v == "worktree" {
					target = v
				}
			case "outcome":
				outcome = a.Value.String()
			}
			return true
		})
		if outcome != "" {
			m.applies.add(1, target, outcome)
		}
	}
}
