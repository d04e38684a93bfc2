package patch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/tracing"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// VerifyPatchIn is what verify_patch takes.
type VerifyPatchIn struct {
	toolkit.Selector
	// PatchID is the patch to check (its base plus its changes). Give patch_id or revision.
	PatchID string `json:"patch_id,omitempty" jsonschema:"pattern=^[0-9a-f]{40}$"`
	// Revision is a committed revision to check instead of a patch. Default HEAD when patch_id is absent.
	Revision string `json:"revision,omitempty" jsonschema:"maxLength=256"`
	// Checks are the checks to run, in order. Default: every check the operator allows, on ./...
	Checks []CheckIn `json:"checks,omitempty" jsonschema:"maxItems=16"`
}

// CheckIn names one check.
type CheckIn struct {
	// Name is the check: gofmt, go_vet, go_build or go_test, if the operator allows it.
	Name string `json:"name" jsonschema:"enum=gofmt,enum=go_vet,enum=go_build,enum=go_test"`
	// Packages are package patterns, each ./... or a relative package path (./cmd/x, ./internal/...). Default ./...
	Packages []string `json:"packages,omitempty" jsonschema:"maxItems=64"`
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	// Name is the check.
	Name string `json:"name"`
	// Packages are the package patterns it ran on.
	Packages []string `json:"packages,omitempty"`
	// Passed says the check succeeded.
	Passed bool `json:"passed"`
	// ExitCode is the check's exit code; -1 when it was killed or could not start.
	ExitCode int `json:"exit_code"`
	// DurationMS is how long it ran, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// TimedOut says it was killed at its deadline.
	TimedOut bool `json:"timed_out,omitempty"`
	// Output is the tail of its output (stdout and stderr).
	Output string `json:"output"`
	// OutputBytes is the size of its whole output.
	OutputBytes int64 `json:"output_bytes"`
	// Truncated says output holds only the tail.
	Truncated bool `json:"truncated"`
	// Redacted counts the secret fixture contents replaced by [redacted] in output.
	Redacted int `json:"redacted,omitempty"`
	// Error says why the check could not run or was stopped.
	Error string `json:"error,omitempty"`
}

// Isolation says which protections the checks ran with. Each is true only when a probe inside every check's sandbox saw it hold.
type Isolation struct {
	// UID says the checks ran as an unprivileged uid, not root and not the server's.
	UID bool `json:"uid"`
	// Filesystem says the checks saw only a copy of the export, the Go toolchain and the module cache (read-only), and a private temporary directory: no workspace, no .git, no host path.
	Filesystem bool `json:"filesystem"`
	// PID says the checks ran in their own PID namespace: no signal reached outside, and no process outlived its check.
	PID bool `json:"pid"`
	// Network says the checks ran in a network namespace with loopback only.
	Network bool `json:"network"`
	// Limits says the processes, memory, CPU time, file size and disk of the checks were bounded.
	Limits bool `json:"limits"`
	// Unconfined lists the properties the checks ran without because the operator allowed it.
	Unconfined []string `json:"unconfined,omitempty"`
	// Notes explain any property that did not hold.
	Notes []string `json:"notes,omitempty"`
}

// ExportInfo describes the tree the checks ran on.
type ExportInfo struct {
	// Files counts the files exported.
	Files int `json:"files"`
	// Bytes counts their bytes.
	Bytes int64 `json:"bytes"`
	// Omitted counts paths withheld by policy (secrets): the checks never saw them.
	Omitted int `json:"omitted"`
	// Fixtures lists files a secret pattern matches that were exported anyway, as test fixtures the operator allows (verify_secret_fixtures); their contents are redacted from the output.
	Fixtures []string `json:"fixtures,omitempty"`
	// Skipped counts symlinks and submodules, which are not exported.
	Skipped int `json:"skipped"`
	// DurationMS is how long the export took, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
}

// VerifyPatchOut is what verify_patch returns.
type VerifyPatchOut struct {
	// Revision is the full SHA of the commit checked (the patch commit for a patch).
	Revision string `json:"revision"`
	// PatchID is the patch checked, if one was named.
	PatchID string `json:"patch_id,omitempty"`
	// Passed is the verdict: every check passed.
	Passed bool `json:"passed"`
	// Checks are the results, in order.
	Checks []CheckResult `json:"checks"`
	// Isolation says how the checks were confined.
	Isolation Isolation `json:"isolation"`
	// Export describes the tree checked.
	Export ExportInfo `json:"export"`
}

// Text renders the verdict and each check's output tail.
func (o VerifyPatchOut) Text() string {
	var b strings.Builder
	verdict := "FAILED"
	if o.Passed {
		verdict = "passed"
	}
	fmt.Fprintf(&b, "Verification of %s %s.\n%s", o.Revision, verdict, o.Isolation.text())
	if o.Export.Omitted > 0 || len(o.Export.Fixtures) > 0 {
		fmt.Fprintf(&b, "Export: %d files; %d withheld by policy (the checks never saw them)", o.Export.Files, o.Export.Omitted)
		if len(o.Export.Fixtures) > 0 {
			fmt.Fprintf(&b, "; secret-pattern test fixtures exported and redacted from the output: %s", strings.Join(o.Export.Fixtures, ", "))
		}
		b.WriteString(".\n")
	}
	for _, c := range o.Checks {
		status := "passed"
		if !c.Passed {
			status = fmt.Sprintf("failed (exit %d)", c.ExitCode)
		}
		fmt.Fprintf(&b, "\n%s %s: %s in %d ms", c.Name, strings.Join(c.Packages, " "), status, c.DurationMS)
		if c.Error != "" {
			fmt.Fprintf(&b, "; %s", c.Error)
		}
		if c.Redacted > 0 {
			fmt.Fprintf(&b, " (%d secret fixture excerpts redacted)", c.Redacted)
		}
		if c.Output != "" {
			head := fmt.Sprintf("\nOutput of %s", c.Name)
			if c.Truncated {
				head += fmt.Sprintf(" (last %d of %d bytes)", len(c.Output), c.OutputBytes)
			}
			b.WriteString(toolkit.Fence(head+":", c.Output))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// text says which isolation properties held, verified by each check's
// probe, and which the checks ran without.
func (iso Isolation) text() string {
	var held, missing []string
	for _, p := range []struct {
		name string
		ok   bool
	}{{"uid", iso.UID}, {"filesystem", iso.Filesystem}, {"pid", iso.PID}, {"network", iso.Network}, {"limits", iso.Limits}} {
		if p.ok {
			held = append(held, p.name)
		} else {
			missing = append(missing, p.name)
		}
	}
	var b strings.Builder
	if len(held) > 0 {
		fmt.Fprintf(&b, "Isolation verified by a probe in each check's sandbox: %s.\n", strings.Join(held, ", "))
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "NOT isolated: %s", strings.Join(missing, ", "))
		if len(iso.Unconfined) > 0 {
			fmt.Fprintf(&b, " (the operator allows running without %s)", strings.Join(iso.Unconfined, ", "))
		}
		b.WriteString(".\n")
		for _, n := range iso.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

func (t *tools) verify(ctx context.Context, req *server.Request, in VerifyPatchIn) (VerifyPatchOut, error) {
	if in.PatchID != "" && in.Revision != "" {
		return VerifyPatchOut{}, server.Errorf(server.InvalidInput, "give patch_id or revision, not both")
	}
	if in.Revision == workspace.WorktreeRevision {
		return VerifyPatchOut{}, server.Errorf(server.InvalidInput, "only committed revisions and patches can be verified")
	}
	specs, err := t.specs(in.Checks)
	if err != nil {
		return VerifyPatchOut{}, err
	}
	acc := toolkit.Access(req)
	rev := in.Revision
	if in.PatchID != "" {
		ws, err := t.reg.Workspace(acc, in.WorkspaceID)
		if err != nil {
			return VerifyPatchOut{}, err
		}
		if _, err := t.proposal(ws, in.PatchID); err != nil {
			return VerifyPatchOut{}, err
		}
		rev = in.PatchID
	}
	snap, err := t.reg.Snapshot(ctx, acc, in.WorkspaceID, rev)
	if err != nil {
		return VerifyPatchOut{}, err
	}
	progress, stop := reportVerify(req, specs)
	defer stop()
	dir, err := os.MkdirTemp(t.checker.TempDir(), "repo-mcp-verify-")
	if err != nil {
		return VerifyPatchOut{}, server.Errorf(server.Internal, "making the export directory failed").Wrap(err)
	}
	defer verify.RemoveAll(dir)
	start := time.Now()
	stats, err := snap.Export(ctx, dir, workspace.ExportOptions{SecretFixtures: true})
	if err != nil {
		return VerifyPatchOut{}, err
	}
	if err := verify.CheckModules(dir); err != nil {
		return VerifyPatchOut{}, server.Errorf(server.InvalidInput, "%v", err).
			WithHint("a replace directive may only name a directory inside the repository")
	}
	out := VerifyPatchOut{Revision: snap.Revision().SHA, PatchID: in.PatchID, Export: ExportInfo{
		Files: stats.Files, Bytes: stats.Bytes, Omitted: stats.Omitted, Skipped: stats.Links + stats.Submodules,
		DurationMS: time.Since(start).Milliseconds(),
	}}
	out.Export.Fixtures = stats.Fixtures
	secrets, err := readFixtures(dir, stats.Fixtures)
	if err != nil {
		return VerifyPatchOut{}, server.Errorf(server.Internal, "reading the exported fixtures failed").Wrap(err)
	}
	opts := []verify.RunOption{verify.WithSecrets(secrets...), verify.WithAbsent(snap.HostPaths()...), verify.WithProgress(progress)}
	rctx, span := tracing.Start(ctx, "verify checks", tracing.Int("repo_mcp.checks", len(specs)))
	rep := t.checker.Run(rctx, dir, specs, opts...)
	span.End()
	stop()
	out.Passed = rep.Passed
	iso := rep.Isolation
	out.Isolation = Isolation{UID: iso.UID, Filesystem: iso.Filesystem, PID: iso.PID, Network: iso.Network, Limits: iso.Limits, Notes: iso.Notes}
	for _, p := range iso.Unconfined {
		out.Isolation.Unconfined = append(out.Isolation.Unconfined, string(p))
	}
	for _, r := range rep.Checks {
		out.Checks = append(out.Checks, CheckResult{
			Name: r.Name, Packages: r.Packages, Passed: r.Passed, ExitCode: r.ExitCode, DurationMS: r.Duration.Milliseconds(),
			TimedOut: r.TimedOut, Output: r.Output, OutputBytes: r.OutputBytes, Truncated: r.Truncated, Redacted: r.Redacted, Error: r.Error,
		})
	}
	return out, nil
}

// readFixtures reads the exported files whose contents must be redacted.
func readFixtures(dir string, paths []string) ([][]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var contents [][]byte
	for _, p := range paths {
		data, err := root.ReadFile(filepath.FromSlash(p))
		if err != nil {
			return nil, err
		}
		contents = append(contents, data)
	}
	return contents, nil
}

// specs turns the requested checks into specs, refusing what the operator
// does not allow before anything is exported.
func (t *tools) specs(in []CheckIn) ([]verify.Spec, error) {
	var specs []verify.Spec
	if len(in) == 0 {
		for _, name := range t.checker.Checks() {
			specs = append(specs, verify.Spec{Name: name})
		}
		return specs, nil
	}
	for i, c := range in {
		s := verify.Spec{Name: c.Name, Packages: c.Packages}
		if !t.checker.Allows(c.Name) {
			return nil, server.Errorf(server.PermissionDenied, "checks[%d]: %q is not in the operator's allowlist (%s)", i, c.Name, t.checker.Allowed())
		}
		if err := t.checker.CheckSpec(s); err != nil {
			return nil, server.Errorf(server.InvalidInput, "checks[%d]: %v", i, err)
		}
		specs = append(specs, s)
	}
	return specs, nil
}
