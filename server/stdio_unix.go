//go:build unix

package server

import (
	"fmt"
	"os"
	"syscall"
)

// TakeStdout protects the protocol stream of a stdio server. It returns a
// duplicate of the process's standard output for the protocol alone, then
// points file descriptor 1 (and so os.Stdout) at standard error, so that a
// stray print, in this process or a child it starts, lands in the log
// instead of corrupting the stream. Call it first thing in main, before
// anything could write to stdout.
func TakeStdout() (*os.File, error) {
	fd, err := syscall.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("duplicate stdout: %w", err)
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Dup2(2, 1); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	// os.Stdout still wraps descriptor 1, which now leads to stderr. It is
	// not replaced: dropping the last reference to its *os.File would let
	// the collector close descriptor 1.
	return os.NewFile(uintptr(fd), "protocol-stdout"), nil
}
