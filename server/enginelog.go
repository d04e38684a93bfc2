package server

import (
	"context"
	"log/slog"
)

// engineLog returns the logger the protocol engine writes to: the server's
// own, with the engine's informational records lowered to debug. The engine
// logs every session's start, connection and end at info level, and over
// HTTP each stateless request is a session of its own: three lines per
// request at info would bury the operator's log (3.7 MB for 12.5k
// requests). Warnings and errors keep their level.
func engineLog(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(demoted{l.Handler()})
}

// demoted is a handler that lowers records below warning to debug.
type demoted struct{ h slog.Handler }

func (d demoted) Enabled(ctx context.Context, level slog.Level) bool {
	return d.h.Enabled(ctx, demote(level))
}

func (d demoted) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return d.h.Handle(ctx, r)
}

func (d demoted) WithAttrs(attrs []slog.Attr) slog.Handler { return demoted{d.h.WithAttrs(attrs)} }

func (d demoted) WithGroup(name string) slog.Handler { return demoted{d.h.WithGroup(name)} }

func demote(level slog.Level) slog.Level {
	if level < slog.LevelWarn {
		return min(level, slog.LevelDebug)
	}
	return level
}
