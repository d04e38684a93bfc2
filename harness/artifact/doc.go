// Package artifact stores the raw results of tool calls, content-addressed,
// and renders the bounded summary a model receives instead of them.
//
//	store, err := artifact.NewStore(filepath.Join(runDir, "artifacts"))
//	ref, err := store.Put(raw)                    // "sha256:..." and the size, durable
//	ref, durable, err := store.Write(raw)         // stored now, durable when durable() returns
//	text := artifact.Summarize(resultText, ref, 16<<10)
//
// A result larger than the bound reaches the model as its head, cut on a
// UTF-8 boundary, followed by a marker that gives the total size and the
// artifact reference; the full bytes stay in the store. Nothing is cut
// silently, and the bound applies however short the server says its result
// is.
package artifact
