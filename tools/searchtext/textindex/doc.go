// Package textindex is the engine of search_text: a trigram posting index
// over blob contents, keyed by blob id, so that every revision of a
// repository shares it and a new revision indexes only its new blobs.
//
// An [Index] is a set of immutable shards. Each shard names the blobs it
// covers (by SHA-1), says which of them are binary, and holds, for every
// trigram of their text, the sorted list of the blobs holding it. A query
// is planned from the regular expression's syntax tree into an AND/OR tree
// of trigrams ([NewPlan], using github.com/google/codesearch/index's
// planner), evaluated per shard against only the blobs of the revision
// asked about ([Index.Candidates]); the caller verifies the candidates
// with the real expression. A caller that asks about the same list again
// and again (the files of a commit) keeps the list located in the index
// ([Index.ResolvedCandidates]), until the index changes.
//
//	ix, err := textindex.Open(textindex.Options{Dir: dir})
//	known := ix.Lookup(blobs)                // which blobs are indexed already
//	ix.Build(ctx, missing, src, nil)         // index the others, in bounded memory
//	cands := ix.Candidates(textindex.NewPlan(re), blobs)
//	cands, res = ix.ResolvedCandidates(plan, blobs, res) // the same, kept located
//
// Shards live on disk under Options.Dir, named by a digest of the blobs
// they cover, written to a temporary name and renamed into place: a reader
// never sees a partial shard, processes and replicas sharing the directory
// pick up each other's shards ([Index.Refresh]), and two processes that
// build the same shard write the same bytes. A shard that fails its
// checksum is ignored and removed; its blobs are simply indexed again.
// A build that leaves more than Options.MaxShards shards merges the
// smallest into one ([Index.Merge]), writing the merged shard before it
// removes the sources, so that the count stays bounded while other
// processes read the directory.
package textindex

// Why not all of codesearch: its query planner is used as is, but its
// index writer and reader are not. The writer skips files with long lines,
// invalid UTF-8 or many trigrams (a search would silently miss their
// matches), sorts with package-level buffers (two writers in one process
// race), and, like the reader on a damaged file, ends the process with
// log.Fatal on an I/O error. A shard here is a few hundred lines of
// format: every text blob indexed, damage detected by checksum and
// repaired by indexing again, errors returned.
