// Package eventlog is the harness's record of a run: an append-only JSONL
// file, one event per line, each written and fsynced before Append returns.
// Whatever the harness did is on disk before it acts on it, so a restart can
// rebuild every run from its log alone.
//
// fsyncs are shared: appends that arrive while one fsync runs are made
// durable together by the next (group commit), and Stage writes events
// that nothing acts on yet, leaving them to the next Append or Sync.
// StageAfter stages events that name something in another file (an
// artifact) together with the sync that makes it durable: the two syncs
// run side by side, and the next Append or Sync waits for both. A harness
// call then costs one round of syncs on its path, its intent's, rather
// than one per event and one more for the artifact.
//
//	log, err := eventlog.Create(filepath.Join(dir, "events.jsonl"))
//	ev, err := log.Append(eventlog.Event{Run: id, Type: eventlog.RunCreated, Data: eventlog.Marshal(eventlog.RunData{Task: task})})
//	...
//	events, err := eventlog.Read(path)           // for audit and recovery
//	log, events, err := eventlog.Open(path, nil) // reopen to keep appending
//
// Open repairs a log whose last line was cut by a crash (the append never
// returned, so nothing acted on it): the torn tail is cut off before
// appending. A crash of the machine can also leave events of StageAfter
// on disk without what they name; the reader that knows what they name
// tells Open (keep) how many events stand, and the rest is cut off too.
//
// The event types and their payloads (RunData, CallData, ...) are defined
// here too, so that the engine that writes them and the audit that reads
// them agree on one schema.
package eventlog
