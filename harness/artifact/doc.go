// Package artifact names the raw results of tool calls by their content
// (artifacts), and renders the bounded summary a model receives instead
// of them. A run's log holds its artifacts (eventlog); the Store here
// reads those of runs recorded before it did.
//
//	ref := artifact.Of(raw)                        // "sha256:..." and the size
//	text := artifact.Summarize(resultText, ref, 16<<10)
//	err := artifact.Check(ref.Digest, bytes)       // bytes read back are the artifact
//	store, err := artifact.OpenStore(filepath.Join(runDir, "artifacts"))
//
// A result larger than the bound reaches the model as its head, cut on a
// UTF-8 boundary, followed by a marker that gives the total size and the
// artifact reference; the full bytes stay in the log. Nothing is cut
// silently, and the bound applies however short the server says its result
// is.
package artifact
