package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// Options tune a Registry. The zero value is usable.
type Options struct {
	// Operator is the identity that gets every action in every workspace
	// when the configuration has no policies at all (the usual stdio case:
	// only --workspace flags). Default "local".
	Operator string
	// ReadBudget is the byte budget of a read that does not name one.
	// Default 256 KiB.
	ReadBudget int64
	// MaxReadBytes caps any read's budget. Default 16 MiB.
	MaxReadBytes int64
	// CacheBytes sizes each workspace's object cache. Default 16 MiB.
	CacheBytes int64
	// BlobCacheBytes bounds the inflated file contents that reads keep for
	// the next read of the same blob, across all workspaces: paging through
	// a large file inflates it once. A file larger than a quarter of it is
	// streamed from the start at each read instead. Default 64 MiB;
	// negative means none.
	BlobCacheBytes int64
	// Logger receives warnings found while opening workspaces. Default: discard.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Operator == "" {
		o.Operator = "local"
	}
	if o.ReadBudget <= 0 {
		o.ReadBudget = 256 << 10
	}
	if o.MaxReadBytes <= 0 {
		o.MaxReadBytes = 16 << 20
	}
	o.ReadBudget = min(o.ReadBudget, o.MaxReadBytes)
	if o.CacheBytes <= 0 {
		o.CacheBytes = 16 << 20
	}
	if o.BlobCacheBytes == 0 {
		o.BlobCacheBytes = 64 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Registry maps workspace ids to repositories and decides who may do what
// in them. It is safe for concurrent use. Open it once at start; Close it
// at exit.
type Registry struct {
	opts       Options
	workspaces map[string]*Workspace
	policies   []*policy
	refWatch   *refWatch // the ref caches' watch, shared; nil: none
}

// Workspace is one configured repository. Its root path is never part of
// any message or result.
type Workspace struct {
	id       string
	root     string   // canonical absolute path; never shown to callers
	private  []string // root and git directories, scrubbed from error causes
	bare     bool
	worktree bool // worktree reads allowed (and possible)
	readOnly bool
	deny     *denyList
	fixtures []Glob // secret-pattern paths an export for verification keeps
	repo     *repo
	rootFS   *os.Root // nil unless worktree reads are allowed
	layout   gitLayout
	intents  *intentWatch
	locks    *lockWatch // ref lock files in the way (reflock.go)
}

// ID returns the workspace id.
func (w *Workspace) ID() string { return w.id }

// WorktreeReadable reports whether the revision "worktree" may be read.
func (w *Workspace) WorktreeReadable() bool { return w.worktree }

// ReadOnly reports whether the workspace refuses the apply action.
func (w *Workspace) ReadOnly() bool { return w.readOnly }

// Bare reports whether the repository has no working tree.
func (w *Workspace) Bare() bool { return w.bare }

// Open checks a configuration, canonicalizes every root (resolving a root
// that is itself a symlink, once, now), and opens each repository. Errors
// are for the operator and may name paths.
func Open(cfg Config, opts Options) (*Registry, error) {
	opts = opts.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	reg := &Registry{opts: opts, workspaces: make(map[string]*Workspace), refWatch: newRefWatch()}
	blobs := newBlobCache(opts.BlobCacheBytes)
	policies := cfg.Policies
	if len(policies) == 0 {
		policies = []PolicyConfig{{Identity: opts.Operator, Workspaces: []string{"*"}, Actions: allActions}}
	}
	for i, pc := range policies {
		p, err := compilePolicy(i, pc)
		if err != nil {
			return nil, err
		}
		reg.policies = append(reg.policies, p)
	}
	for _, wc := range cfg.Workspaces {
		ws, err := openWorkspace(wc, opts, blobs)
		if err != nil {
			reg.Close()
			return nil, fmt.Errorf("workspace %q: %w", wc.ID, err)
		}
		ws.repo.refs.watchWith(reg.refWatch)
		reg.workspaces[wc.ID] = ws
	}
	return reg, nil
}

func openWorkspace(wc WorkspaceConfig, opts Options, blobs *blobCache) (*Workspace, error) {
	root, err := canonicalRoot(wc.Root)
	if err != nil {
		return nil, err
	}
	layout, err := findGitDir(root)
	if err != nil {
		return nil, err
	}
	deny, err := compileDenyList(DefaultDenyPatterns, wc.Deny)
	if err != nil {
		return nil, err
	}
	if hasAlternates(layout) {
		opts.Logger.Warn("workspace has objects/info/alternates; alternate object stores are not read",
			"workspace", wc.ID)
	}
	r, err := openRepo(layout, opts.CacheBytes, largeObjectThreshold)
	if err != nil {
		return nil, err
	}
	r.blobs = blobs
	ws := &Workspace{id: wc.ID, root: root, bare: layout.bare, readOnly: wc.ReadOnly, deny: deny, repo: r, layout: layout, intents: &intentWatch{}, locks: newLockWatch()}
	if ws.fixtures, err = compileFixtures(wc.VerifySecretFixtures); err != nil {
		r.close()
		return nil, err
	}
	for _, dir := range []string{layout.commonDir, layout.gitDir, root} {
		if dir != "" {
			ws.private = append(ws.private, dir)
		}
	}
	if wc.Worktree && !layout.bare {
		if ws.rootFS, err = os.OpenRoot(root); err != nil {
			r.close()
			return nil, err
		}
		ws.worktree = true
	}
	return ws, nil
}

// largeObjectThreshold is the blob size above which go-git streams an
// object from disk instead of loading it whole: a read of a large file then
// holds only its byte budget in memory.
const largeObjectThreshold = 1 << 20

// canonicalRoot makes root absolute and resolves every symlink in it.
func canonicalRoot(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	// The errors name the root as configured: EvalSymlinks's would name
	// only its first missing component.
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("root %s: %w", root, fs.ErrNotExist)
	}
	if err != nil {
		return "", fmt.Errorf("root %s: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("root %s: %w", root, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("root %s is not a directory", root)
	}
	return real, nil
}

func hasAlternates(layout gitLayout) bool {
	for _, dir := range []string{layout.gitDir, layout.commonDir} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "objects", "info", "alternates")); err == nil {
			return true
		}
	}
	return false
}

// Close releases every repository's descriptors.
func (r *Registry) Close() error {
	var errs []error
	for _, ws := range r.workspaces {
		errs = append(errs, ws.repo.close())
		if ws.rootFS != nil {
			errs = append(errs, ws.rootFS.Close())
		}
	}
	r.refWatch.close()
	return errors.Join(errs...)
}

// Options returns the registry's options, defaults filled in.
func (r *Registry) Options() Options { return r.opts }

// IDs returns, sorted, the ids of the workspaces in which identity may do
// anything at all.
func (r *Registry) IDs(identity string) []string {
	var ids []string
	for id := range r.workspaces {
		for _, p := range r.policies {
			if p.appliesTo(identity, id) {
				ids = append(ids, id)
				break
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// Authorize decides whether identity may perform action on path in a
// workspace. It is the check the server middleware runs before a handler;
// every Snapshot read checks again. path may be "" (the workspace as a
// whole); otherwise it is normalized with [CleanPath] and checked against
// the secret patterns and the policies, treating it as a directory that may
// merely contain allowed paths (the middleware does not know what the path
// names; reads apply the exact rule).
//
// The error is a [errclass.Error]: invalid_input for a malformed id, action or
// path; not_found for a workspace that does not exist or that identity has
// no access to at all (the two are indistinguishable); permission_denied,
// naming the refusing rule, otherwise.
func (r *Registry) Authorize(identity, workspaceID string, action Action, path string) error {
	return r.AuthorizeScope(identity, action, Scope{WorkspaceID: workspaceID}.WithPaths(path))
}

// grant finds the policies that let acc.Identity do acc.Action in a
// workspace.
func (r *Registry) grant(acc Access, workspaceID string) (*grant, error) {
	if err := CheckID(workspaceID); err != nil {
		return nil, errclass.Errorf(errclass.InvalidInput, "workspace_id: %v", err)
	}
	if !acc.Action.Valid() {
		return nil, errclass.Errorf(errclass.InvalidInput, "unknown action %s", quoteInput(string(acc.Action)))
	}
	ws := r.workspaces[workspaceID]
	g := &grant{access: acc, ws: ws}
	visible := false
	if ws != nil {
		for _, p := range r.policies {
			if !p.appliesTo(acc.Identity, workspaceID) {
				continue
			}
			visible = true
			if p.actions[acc.Action] {
				g.policies = append(g.policies, p)
			}
		}
	}
	if !visible {
		return nil, errclass.Errorf(errclass.NotFound, "no workspace %q is available to identity %q",
			workspaceID, acc.Identity).WithHint("use a workspace id the operator configured for you")
	}
	if acc.Action == ActionApply && ws.readOnly {
		return nil, errclass.Errorf(errclass.PermissionDenied, "workspace %q is read-only", workspaceID)
	}
	if len(g.policies) == 0 {
		return nil, errclass.Errorf(errclass.PermissionDenied,
			"no policy grants identity %q the action %q in workspace %q", acc.Identity, acc.Action, workspaceID)
	}
	return g, nil
}

// Workspace returns a workspace the caller may act in, for facts that do
// not depend on a revision (refs, HEAD).
func (r *Registry) Workspace(acc Access, workspaceID string) (*Workspace, error) {
	g, err := r.grant(acc, workspaceID)
	if err != nil {
		return nil, err
	}
	return g.ws, nil
}

// scrub removes the workspace's root and git directories from an error's
// text, so that an error that ends up in a log never carries them.
func (w *Workspace) scrub(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	scrubbed := msg
	for _, dir := range w.private {
		scrubbed = strings.ReplaceAll(scrubbed, dir, "<workspace "+w.id+">")
	}
	if scrubbed == msg {
		return err
	}
	return errors.New(scrubbed)
}

// internalError wraps an unexpected failure (a corrupt object, an I/O
// error) as an internal errclass.Error whose cause has the root scrubbed.
func (w *Workspace) internalError(what string, err error) error {
	return errclass.Errorf(errclass.Internal, "%s failed", what).Wrap(w.scrub(err))
}
