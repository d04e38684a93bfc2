//go:build !unix

package verify

import "os/exec"

func bareProcAttr(cmd *exec.Cmd) {}
