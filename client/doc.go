// Package client is a small, hand-written MCP client for stdio servers. It
// exists so that an agent harness can call tools on servers it did not write
// and still know, for every call, whether the answer came, never came, or
// cannot be known, whatever the server does.
//
// Start launches the server and runs the handshake; Tools lists its tools;
// Call calls one; Close stops and reaps the process:
//
//	conn, err := client.Start(ctx, client.Command{
//		Path:    "/usr/bin/node",
//		Args:    []string{"server.js", root},
//		Inherit: []string{"HOME"},
//	}, client.Options{Timeouts: client.Timeouts{Call: 30 * time.Second}})
//	if err != nil { ... }
//	defer conn.Close()
//	tools, err := conn.Tools(ctx)
//	res, err := conn.Call(ctx, "read_text_file", map[string]any{"path": "README.md"})
//	switch client.OutcomeOf(err) {
//	case client.Answered:       // res.IsError tells a tool failure from success
//	case client.RPCError:       // the server refused the request
//	case client.NotSent:        // nothing reached the server; safe to retry
//	default:                    // sent, effect unknown: reconcile, do not replay
//	}
//
// # The outcome of a request
//
// Every request that does not end with a usable result returns a *CallError
// whose Outcome is one of RPCError, NotSent, TimedOut, Cancelled,
// ConnectionLost, Oversized or BadResult. Outcome.Sent and Outcome.Unknown
// group them the way a harness must: a request that was sent and not answered
// may have had its side effect, and is never reported as a plain failure.
// A timed-out or cancelled call stops waiting at once and sends
// notifications/cancelled as best effort; the client never assumes the server
// stopped. When the server's stdout ends, every request in flight ends
// ConnectionLost with the exit status and the tail of stderr (Lost).
//
// # Protocol eras
//
// With Options.Era left at EraAuto the client first sends server/discover with
// the 2026-07-28 per-request _meta. A DiscoverResult listing 2026-07-28 makes
// the connection modern: every later request carries that _meta. A modern
// error (-32020, -32021, -32022) ends Start. Any other error or a timeout of
// Timeouts.Discover means a legacy server: the client sends initialize at
// 2025-11-25, accepts a counter-offer of 2025-06-18 or 2025-03-26, and sends
// notifications/initialized. Conn.Server reports what was negotiated.
//
// # What the client tolerates
//
// Frames are newline-delimited JSON in any key order. Lines that are not JSON
// and messages that cannot be routed are counted (Conn.Stats), logged and
// dropped, as are responses whose id is not an integer or matches no pending
// request. A frame over Limits.FrameBytes is read and discarded up to its
// newline; the request it answers ends Oversized with the frame's first bytes
// kept. Notifications are counted and ignored; server-to-client requests get
// an empty roots list (roots/list), an empty result (ping), or -32601. The
// server's stderr is drained continuously into a bounded ring (Conn.Stderr)
// and never parsed.
//
// Results: text content is returned as text; every other content type is
// kept as raw JSON and marked Unsupported. structuredContent and isError are
// passed through, and Result.Raw holds the result as received.
//
// # The process
//
// The server runs in its own process group with only the environment named
// in Command. Close closes its stdin, waits, sends SIGTERM to the group,
// waits, sends SIGKILL, and reaps it. (Windows has neither signals nor
// group kills: there Close ends the server alone, with TerminateProcess.)
// A stdio server is a local process with the launcher's permissions, not a
// sandbox.
package client
