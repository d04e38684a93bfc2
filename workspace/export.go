package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// ExportStats counts what an export wrote and left out.
type ExportStats struct {
	Files int
	Bytes int64
	// Omitted counts entries withheld by the secret patterns or the
	// caller's policies: code run on the export never sees them.
	Omitted int
	// Links and Submodules count symlinks and gitlinks, which are not
	// exported (a link could name a host path; a submodule's files are
	// not in this repository).
	Links, Submodules int
	// Invalid counts entries whose names cannot be written.
	Invalid int
	// Skipped counts the entries ExportOptions.Skip left out (a directory
	// once, not what is below it).
	Skipped int
	// Fixtures lists the files a secret pattern matches that were exported
	// anyway, as the workspace's verify_secret_fixtures allow: whoever
	// shows output of code run on the export redacts their contents.
	Fixtures []string
}

// compileFixtures parses verify_secret_fixtures (nil: the default).
func compileFixtures(patterns []string) ([]Glob, error) {
	if patterns == nil {
		patterns = DefaultVerifySecretFixtures
	}
	var gs []Glob
	for _, p := range patterns {
		g, err := ParseGlob(p)
		if err != nil {
			return nil, fmt.Errorf("verify_secret_fixtures: %w", err)
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// HostPaths returns the workspace's directories on the host (its root and
// git directories), which code run on an export must not see: a sandbox
// checks that they are absent from its view. The caller must not show
// them to a client.
func (s *Snapshot) HostPaths() []string { return slices.Clone(s.grant.ws.private) }

// ExportOptions say what an export holds besides the files the caller may
// read.
type ExportOptions struct {
	// SecretFixtures also exports the files a secret pattern hides that the
	// workspace's verify_secret_fixtures let through, for code run on the
	// export (tests) that needs them; whoever shows that code's output
	// redacts them. An export whose files are shown to the caller leaves
	// them out.
	SecretFixtures bool
	// Reuse, when not nil, may name a host file that already holds a
	// file's content: an earlier export's of the same blob and mode,
	// which the caller never changes. The export links it there instead
	// of reading and writing the blob ("" writes it; a link that fails
	// too). An export of a revision close to an earlier one then writes
	// only what changed.
	Reuse func(ExportedFile) string
	// Exported, when not nil, is told each file the export holds.
	Exported func(ExportedFile)
	// Skip, when not nil, leaves out the entries it reports true for, and
	// everything below a directory it skips: a caller that reads only part
	// of a tree (go list ignores testdata directories) writes only that
	// part, and creates fewer files, the larger share of an export's cost.
	// Entries a skipped export left out can be written later by another
	// Export into the same directory, skipping what is there. SkipRule names the
	// rule in ExportKey: a different rule writes a different export.
	Skip     func(path string, isDir bool) bool
	SkipRule string
}

// ExportedFile is a file of an export: its path in the tree, its blob's
// id, and its git mode.
type ExportedFile struct {
	Path, Blob string
	Mode       uint32
}

// ExportKey names what [Snapshot.Export] writes for this caller with opts,
// so that an export kept on disk is reused only for the same content: the
// same tree seen through the same secret patterns, fixtures and path
// policies. A change of configuration (across restarts, or between
// replicas sharing a cache) changes the key. It reports false for the
// working tree, which cannot be exported.
func (s *Snapshot) ExportKey(opts ExportOptions) (string, bool) {
	cs, ok := s.src.(*commitSource)
	if !ok {
		return "", false
	}
	h := sha256.New()
	field := func(v string) { fmt.Fprintf(h, "%d:%s", len(v), v) }
	field("export/v2")
	field(s.grant.ws.id)
	field(cs.tree.String())
	if opts.Skip != nil {
		field("skip " + opts.SkipRule)
	}
	for _, p := range s.grant.ws.deny.patterns {
		field("deny " + p)
	}
	if opts.SecretFixtures {
		for _, g := range s.grant.ws.fixtures {
			field("fixture " + g.String())
		}
	}
	if s.grant.restrictsPaths() {
		for _, pol := range s.grant.policies {
			field("policy")
			for _, g := range pol.allow {
				field("allow " + g.String())
			}
			for _, g := range pol.deny {
				field("deny " + g.String())
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// Export writes the snapshot's commit tree into dest, an existing
// directory (empty, unless it holds what an export skipped), as regular
// files and directories only: no .git, no symlinks,
// no submodules, nothing the caller may not read (but, with
// opts.SecretFixtures, the fixtures). It is `git archive | tar -x` with
// the workspace's policies applied.
func (s *Snapshot) Export(ctx context.Context, dest string, opts ExportOptions) (ExportStats, error) {
	cs, ok := s.src.(*commitSource)
	if !ok {
		return ExportStats{}, errclass.Errorf(errclass.InvalidInput, "only a commit can be exported, not the working tree")
	}
	root, err := os.OpenRoot(dest)
	if err != nil {
		return ExportStats{}, err
	}
	e := &exporter{s: s, opts: opts, dest: dest, jobs: make(chan exportJob, 64)}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(e.write)
	}
	top := newExportDir(root)
	err = e.walk(ctx, cs.tree, "", top, false)
	top.release()
	close(e.jobs)
	wg.Wait()
	if err == nil {
		err = e.firstErr()
	}
	e.stats.Bytes += e.bytes.Load()
	return e.stats, err
}

// exportDir is a directory of the export, open as a root of its own so
// that a file is created in it by name: one openat, where a path from the
// export's root would be opened a component at a time. It is closed once
// its walk and every write in it are done.
type exportDir struct {
	root    *os.Root
	pending atomic.Int32
}

// newExportDir returns root as a directory held once, by its walk.
func newExportDir(root *os.Root) *exportDir {
	d := &exportDir{root: root}
	d.pending.Store(1)
	return d
}

func (d *exportDir) hold() { d.pending.Add(1) }

func (d *exportDir) release() {
	if d.pending.Add(-1) == 0 {
		d.root.Close()
	}
}

type exportJob struct {
	path string // in the tree
	dir  *exportDir
	name string // in dir
	mode filemode.FileMode
	blob plumbing.Hash
	// link is a host file holding the blob (ExportOptions.Reuse), which
	// is then read only if linking it fails.
	link string
}

type exporter struct {
	s     *Snapshot
	opts  ExportOptions
	dest  string
	jobs  chan exportJob
	stats ExportStats
	bytes atomic.Int64 // written by the writers: stats.Bytes's share of read blobs

	mu  sync.Mutex
	err error
}

// walk exports a tree, at dir in the export, into d; secret says a
// secret pattern denied an ancestor that was exported as a fixture, so
// every file below is one too.
func (e *exporter) walk(ctx context.Context, tree plumbing.Hash, dir string, d *exportDir, secret bool) error {
	r := e.s.grant.ws.repo
	r.mu.Lock()
	entries, err := r.treeLocked(tree)
	r.mu.Unlock()
	if err != nil {
		return e.s.grant.ws.internalError("reading a tree", err)
	}
	for _, te := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.firstErr() != nil {
			return nil
		}
		p := joinPath(dir, te.name)
		if !validEntryName(te.name) {
			e.stats.Invalid++
			continue
		}
		if e.opts.Skip != nil && e.opts.Skip(p, te.mode == filemode.Dir) {
			e.stats.Skipped++
			continue
		}
		isSecret := secret
		if e.s.grant.hidesEntry(p, te.mode == filemode.Dir) {
			if !e.fixture(p, te.mode == filemode.Dir) {
				e.stats.Omitted++
				continue
			}
			isSecret = true
		}
		switch te.mode {
		case filemode.Dir:
			if err := e.dir(ctx, te, p, d, isSecret); err != nil {
				return err
			}
		case filemode.Symlink:
			e.stats.Links++
		case filemode.Submodule:
			e.stats.Submodules++
		default:
			job := e.file(p, te.hash, te.mode)
			if isSecret {
				e.stats.Fixtures = append(e.stats.Fixtures, p)
			}
			job.dir, job.name = d, te.name
			d.hold()
			e.jobs <- job
		}
	}
	return nil
}

// dir makes the directory of te, at p in the export, in parent and
// exports its tree into it.
func (e *exporter) dir(ctx context.Context, te treeEntry, p string, parent *exportDir, secret bool) error {
	if err := parent.root.Mkdir(te.name, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("exporting %s: %w", p, err)
	}
	root, err := parent.root.OpenRoot(te.name)
	if err != nil {
		return fmt.Errorf("exporting %s: %w", p, err)
	}
	d := newExportDir(root)
	defer d.release()
	return e.walk(ctx, te.hash, p, d, secret)
}

// file returns the job of writing a file, which the writer reads (read), or a host
// file holding it to link (ExportOptions.Reuse).
func (e *exporter) file(p string, blob plumbing.Hash, mode filemode.FileMode) exportJob {
	f := ExportedFile{Path: p, Blob: blob.String(), Mode: uint32(mode)}
	if e.opts.Exported != nil {
		e.opts.Exported(f)
	}
	job := exportJob{path: p, mode: mode, blob: blob}
	e.stats.Files++
	if e.opts.Reuse != nil {
		if job.link = e.opts.Reuse(f); job.link != "" {
			if fi, err := os.Lstat(job.link); err == nil && fi.Mode().IsRegular() {
				e.stats.Bytes += fi.Size()
				return job
			}
			job.link = ""
		}
	}
	return job
}

// read returns a blob's content. A packed blob is read outside the
// repository's lock, on the pack views of the caller's own (two writers
// then inflate at once); any other through go-git, under the lock. Neither
// fills the blob cache: an export reads many blobs once each, and would
// only evict the ones callers are paging.
func (e *exporter) read(blob plumbing.Hash) ([]byte, error) {
	r := e.s.grant.ws.repo
	data, found, err := r.readPackedBlob(blob)
	if !found {
		r.mu.Lock()
		data, _, err = r.readBlobLocked(blob, 0, 1<<62)
		r.mu.Unlock()
	}
	if err != nil {
		return nil, e.s.grant.ws.internalError("reading a blob", err)
	}
	return data, nil
}

// fixture reports whether an entry the grant hides is a test fixture to
// export all the same: fixtures were asked for, a secret pattern, not the
// caller's policy, hides it, and the workspace's verify_secret_fixtures
// match it.
func (e *exporter) fixture(p string, isDir bool) bool {
	if !e.opts.SecretFixtures || e.s.grant.policyHides(p, isDir) {
		return false
	}
	for _, g := range e.s.grant.ws.fixtures {
		if g.Match(p) {
			return true
		}
	}
	return false
}

func (e *exporter) write() {
	for job := range e.jobs {
		e.writeJob(job)
		job.dir.release()
	}
}

// writeJob writes a job's file into its directory: a link to the host
// file that holds it, or its content.
func (e *exporter) writeJob(job exportJob) {
	if e.firstErr() != nil {
		return
	}
	// The export's directories are its own, made by walk: no link in
	// them leads out of dest.
	if job.link != "" && os.Link(job.link, filepath.Join(e.dest, filepath.FromSlash(job.path))) == nil {
		return
	}
	data, err := e.read(job.blob)
	if err != nil {
		e.fail(err)
		return
	}
	if job.link == "" {
		e.bytes.Add(int64(len(data)))
	}
	perm := fs.FileMode(0o644)
	if job.mode == filemode.Executable {
		perm = 0o755
	}
	if err := job.dir.root.WriteFile(job.name, data, perm); err != nil {
		e.fail(fmt.Errorf("exporting %s: %w", job.path, err))
	}
}

func (e *exporter) fail(err error) {
	e.mu.Lock()
	e.err = errors.Join(e.err, err)
	e.mu.Unlock()
}

func (e *exporter) firstErr() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}
