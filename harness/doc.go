// Package harness runs an agent over tools it reaches through ToolSources
// (its own local tools and MCP servers) without handing any of its duties
// to them: the allowlist, effects, approvals, the event log, artifacts and
// recovery all stay here, so swapping one MCP server for another can never
// bypass a workspace check or an approval.
//
//	h, err := harness.New(ctx, harness.Options{Config: cfg, Observe: func(ev eventlog.Event) { ... }})
//	defer h.Close()
//	run, err := h.Submit(ctx, "List the files in the workspace, read README.md, then summarize it in three sentences.")
//	st := h.Wait(ctx, run)           // until the run completes or needs a person
//	err = h.Approve(run, call, digest, definition, "alice")
//	err = h.Reconcile(run, call, eventlog.NotHappened, "alice", "checked the server's log")
//
// # A run
//
// A run is a conversation between a model and the harness. Each tool call
// the model asks for becomes a ToolCall that moves through
//
//	proposed -> permission_denied | failed (invalid arguments, never sent)
//	         | waiting_for_approval -> denied | ready
//	         | ready -> executing -> succeeded | failed | unknown | cancelled
//
// A call to a tool outside the allowlist ends permission_denied and the
// model is told so. Arguments are validated against the schema the harness
// rebuilt, and configured path arguments are checked against the workspace
// (package pathcheck), before anything is sent. Read-only calls go straight
// to ready; write, network and destructive ones wait for a person, whose
// approval is bound to the argument digest and the tool-definition hash.
// The run itself is running, waiting_for_approval, interrupted, completed,
// failed or cancelled.
//
// # The log is the state
//
// Every state change is an event appended to the run's JSONL log and
// fsynced (package eventlog) before the harness acts on it; in particular
// the executing event, the call's intent, is on disk before tools/call is
// sent. The in-memory state of a run is only ever derived by applying its
// events, live or when New reads the logs back after a restart. A call
// whose answer never came (timeout, lost connection, oversized or unusable
// answer) ends unknown and its run interrupted; after a restart a call
// left executing becomes unknown too. Nothing with a side effect is sent
// again automatically: a person reconciles each unknown call (happened,
// not_happened, retry), and that decision is an event. Read-only calls are
// retried automatically (Config.RetryReadOnly times) and the log says so.
//
// Raw results (artifacts, named by their digest: package artifact) are
// written to the run's log, on a line of their own before the events
// that name them; the model receives a bounded summary. A call has one
// sync on its path, its intent's, which also makes the previous call's
// artifact and result durable (they are staged, and reported once it
// returns). A crash of the machine loses a suffix of the log at most, so
// an artifact and the events naming it stand or go together; nothing
// after them was reported or sent. Runs recorded before logs held
// artifacts kept them in a pack under the run, which is still read.
// Package audit turns the logs into the per-call audit table.
//
// # Hostile servers, models and repositories
//
// One process drives the runs of a state directory: New takes an flock on
// its lock file and a second harness is refused with the holder's pid,
// host and start time. A server that cannot be started, dies during
// discovery or describes its tools with schemas beyond the bounds is left
// out (Unavailable, the run_created event, the logger) and the others
// serve. Tool calls a model names with no id, or with an id another call
// of the reply has, are renamed and the model_reply event says so, so
// every call gets its result. Everything a model or a server wrote reaches
// a person or a model through package visible: control, escape and bidi
// characters are shown, never obeyed, in results, previews, summaries and
// logs.
package harness
