package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// execBare runs a check without a sandbox, as the server's user on the
// export itself, when the operator allowed every property it lacks; why
// says why no sandbox could be had.
func (c *Checker) execBare(ctx context.Context, rc *runContext, run command, out io.Writer, why string) execResult {
	var probe probeReport
	for _, p := range Properties {
		probe.fail(p, "no sandbox: %s", why)
	}
	if len(probe.missing(c.opts.Unconfined)) > 0 {
		return execResult{code: -1, probe: probe}
	}
	work, err := os.MkdirTemp(c.opts.TempDir, "repo-mcp-verify-work-")
	if err != nil {
		return execResult{code: -1, probe: probe, err: errors.New("the check's temporary directory cannot be created")}
	}
	defer RemoveAll(work)
	for _, d := range []string{"home", "tmp", "gocache"} {
		if err := os.Mkdir(filepath.Join(work, d), 0o700); err != nil {
			return execResult{code: -1, probe: probe, err: fmt.Errorf("the check's temporary directory: %w", err)}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, run.argv[0], run.argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = rc.dir, c.goEnv(c.goTool().root, c.goTool().modCache, work), out, out
	if run.stdout != nil {
		cmd.Stdout = run.stdout
	}
	bareProcAttr(cmd)
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	res := execResult{probe: probe, timedOut: ctx.Err() == context.DeadlineExceeded}
	res.code, res.err = exitCode(err, res.timedOut)
	return res
}
