// Package workspace is the layer between repository tools and the git
// repositories an operator hands to callers. It answers three questions
// for every call, in this order, before any byte is read:
//
//  1. Who may do what where: a [Registry] maps workspace ids to roots and
//     holds the operator's policies (identity x workspace x action x path x
//     ref). [Registry.Authorize] is the check the server middleware runs.
//  2. Which commit: [Registry.Snapshot] resolves a revision (full or short
//     SHA, branch, tag, HEAD, ~N/^N, or "worktree") to a full commit SHA,
//     refusing anything git would interpret further (a leading "-",
//     reflogs, :/text, rev:path, ^{...}).
//  3. Which path: [CleanPath] normalizes a caller's path and refuses
//     absolute forms, escapes, .git in any spelling, and bytes that are not
//     path text; the secret patterns ([DefaultDenyPatterns]) and the
//     caller's policy globs then decide.
//
// A tool is then a thin function over a [Snapshot]. Its input embeds a
// [Target] (or a [Selector] when it acts on a workspace but not on one of
// its revisions), so the input names its scope in its type:
//
//	type ReadIn struct {
//		workspace.Target        // workspace_id, revision
//		Path string `json:"path"`
//	}
//
//	// Scope tells the authorization hook which paths the call reads, and
//	// in which role, without looking at the arguments by name.
//	func (in ReadIn) Scope() workspace.Scope { return in.Target.Scope().File(in.Path) }
//
// [Registry.AuthorizeScope] checks such a [Scope] before the tool runs; the
// Snapshot checks every path again:
//
//	reg, err := workspace.Open(cfg, workspace.Options{})      // at start
//	...
//	acc := workspace.Access{Identity: identity, Action: workspace.ActionRead}
//	snap, err := reg.Snapshot(ctx, acc, in.WorkspaceID, in.Revision)
//	if err != nil {
//		return err // an *errclass.Error: invalid_input, not_found or permission_denied
//	}
//	f, err := snap.ReadFile(ctx, in.Path, workspace.ReadOptions{Limit: in.MaxBytes})
//	// f.Data, f.Truncated, f.SHA (blob), snap.Revision().SHA (commit) ...
//
// # Reading
//
// Every read of repository content goes through a Snapshot, which applies
// the entry-name rules, the secret patterns and the caller's policies to
// everything it returns; no other package opens the repository (go-git
// stays inside this package, and a test holds that):
//
//   - [Snapshot.Stat] describes one path.
//   - [Snapshot.Walk] visits a tree in git order (paths sorted bytewise, a
//     directory as if it ended in "/"), leaves out and counts what the
//     caller may not see or what no path may be named, and resumes after
//     any entry's [Entry.Cursor]; [Snapshot.List] turns it into pages with
//     totals, and [Snapshot.ReadDir] reads one directory.
//   - [Snapshot.ReadFile] reads a blob by path; [Snapshot.ReadBlob] reads
//     one by id, the id a Walk, Stat or Diff of the same snapshot gave for
//     that path, without resolving the path again (what a search that reads
//     every file wants). Both bound what they hold in memory.
//   - [Snapshot.Diff] lists the paths that differ between the snapshot and
//     a base snapshot of the same workspace, leaving out denied paths; it
//     is the tree diff [Snapshot.DiffFrom] (renames, line counts, patches)
//     makes, with the policy applied in one place as it descends.
//   - [Snapshot.Commits] visits the history reachable from the snapshot,
//     newest first, in the one walk [Snapshot.History] filters (by path,
//     content, author...); [Snapshot.At] is another commit of the same workspace
//     for the same caller (a parent, a commit the history named), so a
//     history tool reads old trees and blobs under the same rules.
//   - Repository facts: [Snapshot.Head], [Snapshot.Refs],
//     [Snapshot.DefaultBranch], [Snapshot.Log] and [Snapshot.WorktreeDirty].
//   - [Snapshot.Shared] is the same revision seen with the workspace's own
//     rules only (entry names, secret patterns), for indexes keyed by
//     content that many callers share; whatever such an index answers must
//     pass the caller's [Snapshot.Authorize] before it is shown.
//
// # Writing
//
// Writes check policy themselves, whoever calls them. Objects are written
// with [Workspace.WriteBlob], [Snapshot.WriteTree] and
// [Workspace.WriteCommit]; they change what no revision means. Branches
// move only through [Snapshot.MoveBranch], which checks the ref name and
// the caller's ref policy. The records a tool keeps in the repository
// (refs under refs/repo-mcp/) are reached only through [Workspace.Records],
// whose names are relative to one prefix and can never leave it. The
// working tree changes only through [Snapshot.ApplyWorktree], journaled and
// rolled back after a crash ([Registry.RecoverWorktrees]).
//
// # Errors
//
// Every error a caller can cause is an *errclass.Error of class invalid_input,
// not_found or permission_denied whose message quotes only the caller's own
// input and names the rule that refused it, never the workspace root or
// anything outside it. A workspace the caller has no access to at all is
// reported exactly like one that does not exist. Faults in the repository
// are class internal, with the root scrubbed from their cause.
//
// # Security model
//
// Committed snapshots are read from the object store with go-git, never
// from the filesystem: symlinks (mode 120000) are reported with their
// target text and never followed; [Entry.LinkPath] says which in-tree path
// a link names when it stays inside. Submodules are reported, not entered.
// Tree entries whose names cannot be a path component here (".git" in any
// spelling, "..", names with slashes, backslashes or control characters)
// are left out of listings and counted as invalid. Alternate object stores
// (objects/info/alternates) are not read: a workspace is exactly what its
// root holds, and an object that lives only elsewhere reads as missing.
//
// The working tree ("worktree", where the workspace allows it) is read
// through an [os.Root] opened on the canonical root, one directory at a
// time, checking that each directory is the one inspected: symlinks are
// reported, never followed (not even inside the tree, where they could
// reach .git), absolute link targets (host paths) are withheld, and FIFOs,
// sockets and devices are refused.
//
// # Performance
//
// Each workspace keeps one go-git storage opened with KeepDescriptors, a
// small object cache, a cache of decoded trees and of blob sizes, and a
// cache of what ref names resolve to, checked on each use by stat calls on
// the ref files it was read from, all guarded by one mutex per workspace
// (go-git's shared pack readers are not safe for concurrent use). Listings
// of commit directories are cached too, with the workspace's deny verdict
// on each entry (the caller's policy still applies on every call), and a
// cold listing reads blob sizes from the pack entries' headers, in windows
// of the pack file (a delta's, from the first bytes of the delta, decoded
// by hand rather than through compress/flate). A recursive walk with sizes
// first reads the listings it lacks on two goroutines, the trees on its
// own and the sizes on a second one reading the packs outside the mutex,
// so that a new process's first full listing uses a second core. The
// mutex is held to find an object, not to inflate it: one caller reading a
// large file does not hold up the others. The
// registry keeps whole inflated blobs, within Options.BlobCacheBytes, for
// the next read of any part of them (paging through a large file inflates
// it once); ReadOptions.Shared hands a reader the cached copy itself. A
// read of a blob's first part, or of a blob too large for the cache,
// streams only what it needs.
package workspace
