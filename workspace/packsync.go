package workspace

import (
	"slices"
)

// Packs written and deleted under an open workspace.
//
// go-git lists a repository's packs once, at its first lookup, and keeps
// a descriptor of every pack it reads (KeepDescriptors); the mapped packs
// (historypack.go) are listed when first used. A fetch writes new packs,
// and a repack or gc writes one and deletes the rest: until both are made
// to list the packs again, objects in the new ones are not found, and the
// deleted ones keep their disk space, one more pack's worth each gc, for
// as long as the workspace is open.

// syncPacksIfChangedLocked is syncPacksLocked when the pack directory's
// modification time moved since it last looked: a stat where a listing
// would read the directory, made before a read through go-git, which
// objects the mapped packs did not have come to. r.mu must be held.
func (r *repo) syncPacksIfChangedLocked() {
	fi, err := r.storage.Filesystem().Stat(packDir)
	if err != nil || fi.ModTime().Equal(r.packDirTime) {
		return
	}
	// The time before the listing: a change made meanwhile is seen
	// again next time, not missed.
	r.packDirTime = fi.ModTime()
	r.syncPacksLocked()
}

// packDir is where a repository's packs are, in its object store's
// filesystem.
const packDir = "objects/pack"

// syncPacksLocked has go-git list the packs again, and the mapped packs
// map the new ones and unmap the deleted ones, unless the packs are those
// it last found; it reports whether they changed. The first time it
// always syncs: go-git may have listed them before. r.mu must be held.
func (r *repo) syncPacksLocked() bool {
	names, err := r.storage.ObjectPacks()
	if err != nil || r.indexedPacks != nil && slices.Equal(names, r.indexedPacks) {
		return false
	}
	// Close only closes go-git's pack descriptors: those of the packs
	// still there are opened again when next read. Closing read-only
	// files, the error says nothing.
	_ = r.storage.Close()
	r.storage.Reindex()
	if r.hist != nil && r.hist.packs != nil {
		r.hist.packs.addPacks(r, names)
	}
	r.indexedPacks = names
	return true
}
