//go:build !unix

package patch_test

import "os/exec"

// runAs leaves cmd as it is where there are no user ids: the checks that
// use it need the Linux sandbox, and are skipped.
func runAs(cmd *exec.Cmd, uid uint32) {}
