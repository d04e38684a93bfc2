package client

import (
	"log/slog"
	"os"
	"strings"
	"time"
)

// Command says which stdio server to launch and with what environment.
//
// The server does not inherit the parent's environment: it sees only Env and
// the variables named in Inherit. A server is a local process with the
// launcher's OS permissions, not a sandbox; keeping its environment explicit
// keeps credentials in the parent's environment out of it.
type Command struct {
	Path string   // program; resolved with the parent's PATH when it has no slash
	Args []string // arguments after the program name
	Dir  string   // working directory; empty means the parent's

	Env     []string // "KEY=VALUE" entries given to the server
	Inherit []string // names of parent variables copied when set (e.g. "HOME", "PATH")
}

// environ builds the server's environment: Inherit first, then Env, which wins.
func (c Command) environ() []string {
	env := []string{} // non-nil: os/exec passes the parent environment for nil
	for _, name := range c.Inherit {
		if v, ok := os.LookupEnv(name); ok && !strings.Contains(name, "=") {
			env = append(env, name+"="+v)
		}
	}
	return append(env, c.Env...)
}

// Era selects how the connection is opened.
type Era int

const (
	// EraAuto tries server/discover at 2026-07-28 first and falls back to the
	// legacy initialize handshake, as the specification asks of dual-era clients.
	EraAuto Era = iota
	// EraLegacy skips server/discover and opens with initialize.
	EraLegacy
	// EraModern speaks only 2026-07-28 and fails when the server does not.
	EraModern
)

// Timeouts bound each kind of request and each step of shutting a server down.
// A zero field takes its default.
type Timeouts struct {
	Discover   time.Duration // server/discover probe; short, a timeout means legacy (default 5s)
	Initialize time.Duration // legacy initialize (default 30s)
	List       time.Duration // each tools/list page (default 30s)
	Call       time.Duration // tools/call (default 2m)
	Write      time.Duration // writing one frame to the server's stdin (default 10s)

	CloseGrace time.Duration // Close: after closing stdin, before SIGTERM (default 2s)
	TermGrace  time.Duration // Close: after SIGTERM, before SIGKILL (default 2s)
	ExitWait   time.Duration // after stdout ends, wait this long for the exit status and stderr (default 1s)
}

// Limits bound what a server can make the client hold. A zero field takes its default.
type Limits struct {
	FrameBytes      int // largest frame accepted (default 16 MiB); larger ones are discarded
	OversizedKeep   int // first bytes of a discarded frame kept for the caller (default 64 KiB)
	StderrLine      int // longest stderr line kept; the rest of the line is dropped (default 4 KiB)
	StderrBytes     int // stderr bytes kept, newest lines first (default 256 KiB)
	ListPages       int // tools/list pages followed (default 64)
	Tools           int // tools accepted from one server (default 1024)
	ErrorStderrTail int // stderr bytes quoted in a connection-lost error message (default 512)
}

// Options configure a connection. The zero value is usable.
type Options struct {
	ClientInfo Implementation // sent to the server (default repo-mcp-client)
	Era        Era
	Timeouts   Timeouts
	Limits     Limits
	Logger     *slog.Logger // protocol anomalies are logged here (default: discarded)
}

func (o Options) withDefaults() Options {
	if o.ClientInfo.Name == "" {
		o.ClientInfo = Implementation{Name: "repo-mcp-client", Version: "0.1.0"}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	t := &o.Timeouts
	setDuration(&t.Discover, 5*time.Second)
	setDuration(&t.Initialize, 30*time.Second)
	setDuration(&t.List, 30*time.Second)
	setDuration(&t.Call, 2*time.Minute)
	setDuration(&t.Write, 10*time.Second)
	setDuration(&t.CloseGrace, 2*time.Second)
	setDuration(&t.TermGrace, 2*time.Second)
	setDuration(&t.ExitWait, time.Second)
	l := &o.Limits
	setInt(&l.FrameBytes, 16<<20)
	setInt(&l.OversizedKeep, 64<<10)
	setInt(&l.StderrLine, 4<<10)
	setInt(&l.StderrBytes, 256<<10)
	setInt(&l.ListPages, 64)
	setInt(&l.Tools, 1024)
	setInt(&l.ErrorStderrTail, 512)
	return o
}

func setDuration(d *time.Duration, def time.Duration) {
	if *d <= 0 {
		*d = def
	}
}

func setInt(n *int, def int) {
	if *n <= 0 {
		*n = def
	}
}
