// Package eventlog is the harness's record of a run: an append-only JSONL
// file, one event per line, each written and fsynced before Append returns.
// Whatever the harness did is on disk before it acts on it, so a restart can
// rebuild every run from its log alone.
//
// fsyncs are shared: appends that arrive while one fsync runs are made
// durable together by the next (group commit), and Stage writes events
// that nothing acts on yet, leaving them to the next Append or Sync.
// StageAfter holds staged events back until something they name (an
// artifact in another file) is durable, a sync that runs while the caller
// goes on. A harness call then costs one fsync on its path, its intent's,
// rather than one per event.
//
//	log, err := eventlog.Create(filepath.Join(dir, "events.jsonl"))
//	ev, err := log.Append(eventlog.Event{Run: id, Type: eventlog.RunCreated, Data: eventlog.Marshal(eventlog.RunData{Task: task})})
//	...
//	events, err := eventlog.Read(path)         // for audit and recovery
//	log, events, err := eventlog.Open(path)    // reopen to keep appending
//
// Open repairs a log whose last line was cut by a crash (the append never
// returned, so nothing acted on it): the torn tail is cut off before appending.
//
// The event types and their payloads (RunData, CallData, ...) are defined
// here too, so that the engine that writes them and the audit that reads
// them agree on one schema.
package eventlog
