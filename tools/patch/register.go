package patch

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Options configure the patch tools. The zero value is usable.
type Options struct {
	// MaxFiles bounds the files one patch changes. Default 100.
	MaxFiles int
	// MaxBytes bounds the bytes one patch writes (the new contents of its
	// files, together). Default 8 MiB.
	MaxBytes int64
	// MaxFileBytes bounds one file a patch reads or writes. Default 4 MiB.
	MaxFileBytes int64
	// MaxDiffBytes bounds the diff text in a result; the rest is cut, and
	// the result says so. Default 256 KiB.
	MaxDiffBytes int
	// Protected lists path globs whose change needs the apply action on the
	// path already when it is proposed. Default [DefaultProtected].
	Protected []string
	// Author and Email sign proposal commits. Default "repo-mcp",
	// "repo-mcp@localhost".
	Author, Email string
	// Confirm, when set, runs in apply_patch after every check (and after
	// the person confirmed, when the client could ask) and before anything
	// is written, with what is about to be applied. An error refuses the
	// apply (return a PermissionDenied *server.Error).
	Confirm func(ctx context.Context, req *server.Request, c Confirmation) error
	// Verify configures verify_patch.
	Verify verify.Options
	// Logger receives one line per apply (request_id, caller, patch_id,
	// digest, target, outcome) and recoveries found at start. Default:
	// discard.
	Logger *slog.Logger
	// Now is the clock of the patches' histories. Default time.Now. It
	// exists for tests of what reads the histories' times (repo-mcp
	// prune); leave it nil.
	Now func() time.Time
	// MaxOpenProposals bounds the proposals one caller has in a workspace
	// that are not applied (quota.go). Default [DefaultMaxOpenProposals];
	// negative: no bound.
	MaxOpenProposals int
	// MaxFailedApplies bounds the failed applies of one caller on record
	// in a workspace (quota.go). Default [DefaultMaxFailedApplies];
	// negative: no bound.
	MaxFailedApplies int
	// AfterWorktreeFile is called after each file a worktree apply puts in
	// place. It exists for crash tests; leave it nil.
	AfterWorktreeFile func(i int)
	// AfterBranchMove is called after a branch apply moved the branch and
	// before it records the apply. It exists for crash tests; leave it nil.
	AfterBranchMove func()
}

// DefaultProtected are the paths whose change needs the apply action when
// it is proposed: CI workflows run with the repository's secrets.
var DefaultProtected = []string{".github/workflows/**"}

func (o Options) withDefaults() Options {
	if o.MaxFiles <= 0 {
		o.MaxFiles = 100
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 8 << 20
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = 4 << 20
	}
	if o.MaxDiffBytes <= 0 {
		o.MaxDiffBytes = 256 << 10
	}
	if o.Protected == nil {
		o.Protected = DefaultProtected
	}
	if o.Author == "" {
		o.Author = "repo-mcp"
	}
	if o.Email == "" {
		o.Email = "repo-mcp@localhost"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxOpenProposals == 0 {
		o.MaxOpenProposals = DefaultMaxOpenProposals
	}
	if o.MaxFailedApplies == 0 {
		o.MaxFailedApplies = DefaultMaxFailedApplies
	}
	return o
}

// tools is the state the four tools share.
type tools struct {
	reg       *workspace.Registry
	opts      Options
	protected []workspace.Glob
	checker   *verify.Checker

	mu       sync.Mutex
	applying map[string]bool      // workspace ids with an apply in flight
	cache    map[string]*proposal // rendered proposals by workspace id/patch id
	authors  map[string]string    // proposals' callers by workspace id/patch id
}

// Register adds generate_patch and preview_diff (family propose),
// apply_patch (family apply) and verify_patch (family verify) to s. Before it registers anything, it rolls back worktree applies that a
// crash interrupted, and logs each one it finds.
func Register(s *server.Server, reg *workspace.Registry, opts Options) error {
	opts = opts.withDefaults()
	t := &tools{reg: reg, opts: opts, applying: map[string]bool{}, cache: map[string]*proposal{}, authors: map[string]string{}}
	for _, p := range opts.Protected {
		g, err := workspace.ParseGlob(p)
		if err != nil {
			return err
		}
		t.protected = append(t.protected, g)
	}
	checker, err := verify.New(opts.Verify)
	if err != nil {
		return err
	}
	t.checker = checker
	if reg != nil {
		recovered, err := reg.RecoverWorktrees()
		for _, r := range recovered {
			opts.Logger.Warn("rolled back an interrupted worktree apply",
				"workspace", r.Workspace, "patch_id", r.ID, "restored", r.Restored, "kept", r.Kept)
		}
		if err != nil {
			opts.Logger.Error("recovering interrupted worktree applies", "error", err)
		}
		settled, err := reg.SettleIntents(time.Now())
		for _, s := range settled {
			opts.Logger.Warn("settled an interrupted branch apply", "branch", s.Branch, "commit", s.Commit, "recorded", s.Recorded)
		}
		if err != nil {
			opts.Logger.Error("settling interrupted branch applies", "error", err)
		}
	}
	comments := toolkit.Comments(goComments())
	if err := server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound, server.PreconditionFailed},
		Name:   "generate_patch",
		Title:  "Propose a change",
		Description: "Propose a change to a repository without changing anything anyone sees: give a base revision " +
			"(default HEAD) and one of: edits (replace old_text by new_text, write, delete, rename); a unified diff; or a " +
			"patch envelope. Diff hunks and envelope chunks are found by their context and removed lines: at the " +
			"header's line if they match there, else at the one place in the file they match, so wrong line numbers " +
			"or counts, missing a/ b/ prefixes, a Markdown fence, CRLF and trailing-space differences in context lines " +
			"are accepted and listed in corrections; removed lines must match exactly; a hunk that matches several " +
			"places or none is refused, naming them. Envelope grammar:\n" +
			"*** Begin Patch\n" +
			"*** Add File: path        (then each line of the new file, prefixed with +)\n" +
			"*** Delete File: path\n" +
			"*** Update File: path\n" +
			"*** Move to: new/path     (optional)\n" +
			"@@ a line of the file      (optional anchor: the chunk starts at or after it)\n" +
			" context line\n-removed line\n+added line\n" +
			"*** End of File           (optional: the chunk ends the file)\n" +
			"*** End Patch\n" +
			"Example: *** Begin Patch\\n*** Update File: main.go\\n@@ func main() {\\n-\\tfmt.Println(1)\\n+\\tfmt.Println(2)\\n*** End Patch\n" +
			"Returns a patch_id, the canonical unified diff (what will be applied), per-file +/- counts, corrections and " +
			"diff_sha256. Review it with preview_diff, then apply it with apply_patch.",
		Effect:         server.Write,
		Idempotent:     true,
		Family:         string(toolkit.FamilyPropose),
		Action:         string(workspace.ActionPropose),
		MaxResultBytes: 2*opts.MaxDiffBytes + 128<<10, // the diff, as text and in the structured result
		Comments:       comments,
	}, t.generate); err != nil {
		return err
	}
	if err := server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound, server.PreconditionFailed},
		Name:   "preview_diff",
		Title:  "Preview a proposed change",
		Description: "Show a proposed patch: its diff (optionally for some paths, with more or less context), stats, " +
			"whether it still applies to a branch or to the working tree right now, and the approval " +
			"{patch_id, base, diff_sha256} that apply_patch must echo.",
		Effect:         server.ReadOnly,
		Family:         string(toolkit.FamilyPropose),
		Action:         string(workspace.ActionPropose),
		MaxResultBytes: 2*opts.MaxDiffBytes + 128<<10, // the diff, as text and in the structured result
		Comments:       comments,
	}, t.preview); err != nil {
		return err
	}
	if err := server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound, server.PreconditionFailed},
		Name:   "apply_patch",
		Title:  "Apply a reviewed change",
		Description: "Apply a previewed patch, given its patch_id and the exact diff_sha256 from preview_diff: point a " +
			"branch at it (default repo-mcp/<id>; refused if the branch exists and is not at the base, or is checked " +
			"out) or write its files into the working tree (refused unless HEAD is the base and each file the patch " +
			"touches still holds its base content, as git would check it out; other files may differ and are left " +
			"alone; files under a gitattributes filter such as Git LFS are refused). Applying the same patch again " +
			"returns the first apply's record.",
		Effect:     server.Destructive,
		Idempotent: true,
		Family:     string(toolkit.FamilyApply),
		Action:     string(workspace.ActionApply),
		Comments:   comments,
	}, t.apply); err != nil {
		return err
	}
	return server.Register(s, server.Tool{
		Errors: []server.Class{server.PermissionDenied, server.NotFound, server.PreconditionFailed},
		Name:   "verify_patch",
		Title:  "Check a proposed change",
		Description: "Run allowlisted checks (" + checker.Allowed() + ") on a patch or revision in an isolated export of " +
			"its tree, in a sandbox: no .git, loopback-only network (tests may serve on 127.0.0.1 and ::1), a scrubbed " +
			"environment, bounded processes, disk, time and output. There is no free-form " +
			"command. Returns each check's exit code, duration and the tail of its output, and an overall verdict.",
		Effect:         server.Write,
		OpenWorld:      false,
		Family:         string(toolkit.FamilyVerify),
		Action:         string(workspace.ActionVerify),
		Timeout:        checker.CallTimeout(),
		MaxResultBytes: 512 << 10,
		Comments:       comments,
	}, t.verify)
}

// beginApply marks an apply in flight in a workspace; a second one is
// refused until the first ends.
func (t *tools) beginApply(id string) (func(), error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.applying[id] {
		return nil, server.Errorf(server.PreconditionFailed, "another apply in workspace %q is in progress", id).
			WithHint("preview the patch again when it has finished, then retry")
	}
	t.applying[id] = true
	return func() {
		t.mu.Lock()
		delete(t.applying, id)
		t.mu.Unlock()
	}, nil
}
