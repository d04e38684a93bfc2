// Package eventlog is the harness's record of a run: an append-only file
// of JSON lines, one event per line, each written and synced before
// Append returns, and the artifacts the events name (a call's raw answer,
// by digest, on a line of its own before the events that name it).
// Whatever the harness did is on disk before it acts on it, so a restart
// can rebuild every run from its log alone.
//
// Syncs are shared: appends that arrive while one sync runs are made
// durable together by the next (group commit), and Stage and
// StageArtifact write what nothing acts on yet, leaving it to the next
// Append or Sync. An artifact and the events naming it are in one file,
// so one sync covers both: a harness call costs one sync on its path, its
// intent's, which also makes the previous call's result durable.
//
//	log, err := eventlog.Create(filepath.Join(dir, "events.jsonl"))
//	ev, err := log.Append(eventlog.Event{Run: id, Type: eventlog.RunCreated, Data: eventlog.Marshal(eventlog.RunData{Task: task})})
//	err = log.StageArtifact(digest, raw)        // durable with the next Append
//	...
//	events, err := eventlog.Read(path)           // for audit and recovery
//	log, events, err := eventlog.Open(path, nil) // reopen to keep appending
//
// The file grows in zeros reserved ahead of its lines, which are written
// over them: a sync of such a write flushes data only, where a sync of an
// append also commits the file's new size to the file system's journal.
// A log's lines therefore end at its first zero byte, and readers stop
// there. Every sync covers all that was written before it, so what a
// crash can lose is a suffix of the lines: it may leave zeros, or a line
// cut short, where an unsynced line was; nothing after either was
// synced, acted on or reported, and it is ignored with them. Open cuts
// it off before appending, and a clean Close gives the reserved zeros
// back. Artifact lines start with {"artifact": and carry the answer in
// base64; readers of events skip them.
//
// The event types and their payloads (RunData, CallData, ...) are defined
// here too, so that the engine that writes them and the audit that reads
// them agree on one schema.
package eventlog
