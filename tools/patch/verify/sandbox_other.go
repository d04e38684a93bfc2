//go:build !linux

package verify

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

type sandbox struct{}

func (c *Checker) isolation() Isolation {
	return Isolation{Notes: []string{"this platform offers no network namespace or Landlock: checks are not isolated"}}
}

func (c *Checker) exec(ctx context.Context, re *runEnv, dir string, argv []string, out io.Writer) (int, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, re.env, out, out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	timedOut := ctx.Err() == context.DeadlineExceeded
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, false, nil
	case errors.As(err, &exit):
		return exit.ExitCode(), timedOut, nil
	}
	return -1, timedOut, err
}

// RunHelper does nothing on this platform.
func RunHelper() {}

func chmodTree(dir string) {
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
}
