// Package client is a small, hand-written MCP client for servers run as a
// local process (stdio) or reached over Streamable HTTP. It exists so that
// an agent harness can call tools on servers it did not write and still
// know, for every call, whether the answer came, never came, or cannot be
// known, whatever the server does.
//
// Start launches a stdio server and runs the handshake; Dial does the same
// for an HTTP endpoint. Both return a *Conn: Tools lists the server's tools;
// Call calls one; Close stops the process, or ends the HTTP session:
//
//	conn, err := client.Start(ctx, client.Command{
//		Path:    "/usr/bin/node",
//		Args:    []string{"server.js", root},
//		Inherit: []string{"HOME"},
//	}, client.Options{Timeouts: client.Timeouts{Call: 30 * time.Second}})
//	// or, for a server over HTTP:
//	conn, err := client.Dial(ctx, client.Endpoint{
//		URL:    "https://mcp.example.com/mcp",
//		Header: http.Header{"Authorization": {"Bearer " + token}},
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
// # Streamable HTTP
//
// Over HTTP every message is its own POST to Endpoint.URL, with
// Endpoint.Header (credentials, say) added to each. The eras are the same
// as on stdio. A modern connection is stateless: every POST carries the
// _meta and the MCP-Protocol-Version, Mcp-Method and, for tools/call,
// Mcp-Name headers (a name that is not plain ASCII is sent in the base64
// form), and each argument a tool's inputSchema marks with x-mcp-header as
// an Mcp-Param-{Name} header. Tools leaves out a tool whose marks break
// the rules (Stats.RejectedTools), and a call the server refuses with
// -32020 (headers do not match the body) is retried once after listing
// the tools again. A legacy connection sends initialize, keeps the Mcp-Session-Id the
// server gave it and the negotiated MCP-Protocol-Version on every later
// request, POSTs notifications/initialized (expecting 202), and ends the
// session with DELETE on Close (405, "not supported", is fine).
//
// A request's answer is read from its own POST's response: one
// application/json body, or a text/event-stream whose events are read until
// the response with the request's id. On the way, notifications are counted
// and ignored and server-to-client requests are answered as on stdio, each
// answer POSTed back; a response with another id is counted and dropped. A
// body or an event over Limits.FrameBytes ends the request Oversized, its
// first bytes kept. Streams are not resumed (no GET stream, no
// Last-Event-ID).
//
// How an HTTP request ends:
//
//   - NotSent only when no byte can have reached the server: the HTTP
//     request could not be built, or no connection to the server was made
//     (the dial failed, or the deadline passed first). The client learns
//     the latter from net/http's connection trace, so with an
//     Endpoint.HTTPClient whose Transport is not an *http.Transport a
//     failed request is never NotSent.
//   - ConnectionLost when the exchange broke after a connection was made:
//     a write or read error, a body cut short, an event stream that ended
//     before the response. The server may have acted.
//   - TimedOut or Cancelled when the context ended first. The POST is
//     aborted; in the legacy era notifications/cancelled is POSTed too, as
//     best effort. In the modern era aborting the POST is the cancellation
//     (2026-07-28), and no notification is sent.
//   - RPCError when the body is a JSON-RPC error for the request (or with no
//     id), whatever the HTTP status: a modern server answers 400 or 404
//     with one.
//   - BadResult when the server answered without a JSON-RPC answer: a status
//     outside 2xx with another body (an HTML error page, a proxy's 502), a
//     2xx of another Content-Type, a 202 for a request, or a JSON body that
//     answers another id. The error is a *HTTPError naming the status and
//     quoting the body's first bytes; CallError.Head keeps them. A status
//     alone does not say whether the request was acted on (a 500 may come
//     halfway through a tool, a gateway's 502 or 504 after the server
//     acted), so the effect is reported unknown, never as a refusal. A 401
//     or 403 says that the server refused the credentials (errors.Is
//     ErrCredentials), with the WWW-Authenticate challenge; Dial stops at
//     the first, as initialize would be refused the same way.
//   - A 404 to a request of a legacy session means the server no longer
//     knows the session: the request ends ConnectionLost (errors.Is
//     ErrSessionGone) and so does the connection, whose Done closes; a new
//     Dial starts a new session.
//
// A connection over HTTP has no process: PID is 0, Stderr is empty, and
// Done closes only when the session is gone or Close was called.
//
// # What the client tolerates
//
// Frames are newline-delimited JSON in any key order. Lines that are not JSON
// and messages that cannot be routed are counted (Conn.Stats), logged and
// dropped, as are responses whose id is not an integer or matches no pending
// request (an answer to a request the client stopped waiting for is counted
// as Late, not as an anomaly: the server was racing the cancellation). A frame over Limits.FrameBytes is read and discarded up to its
// newline; the request it answers ends Oversized with the frame's first bytes
// kept. A large answer (64 KiB or more) whose leading members show a
// response to a pending request is decoded by the goroutine that made the
// call, not by the connection's reader, which goes on to the next frame at
// once: other callers' answers do not wait for a page to be decoded. Such
// a frame that turns out not to be JSON, or not that response, is counted
// and logged as any other and ends the call BadResult. Notifications are
// counted and ignored; server-to-client requests get
// an empty roots list (roots/list), an empty result (ping), or -32601. The
// server's stderr is drained continuously into a bounded ring (Conn.Stderr)
// and never parsed.
//
// Results: text content is returned as text; every other content type is
// kept as raw JSON and marked Unsupported. structuredContent and isError are
// passed through, and Result.Raw holds the result as received. A caller
// of large results one after another (a file read in pages of a megabyte)
// calls Result.Release once done with one: the buffer it was read into is
// read into again for a later answer (at most two such buffers are kept,
// of up to 4 MiB), rather than a new buffer per answer, which the runtime
// clears and faults in. A result not released is never overwritten.
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
