//go:build !linux

package verify

import (
	"context"
	"io"
)

// sandboxSetup is empty: this platform has no sandbox for checks.
type sandboxSetup struct{}

func (c *Checker) setupSandbox() *sandboxSetup { return &sandboxSetup{} }

func (c *Checker) exec(ctx context.Context, rc *runContext, cmd command, out io.Writer) execResult {
	return c.execBare(ctx, rc, cmd, out, "this platform has none (bubblewrap needs Linux)")
}

// RunHelper does nothing on this platform: checks run unsandboxed there,
// and only when the operator allowed it.
func RunHelper() {}
