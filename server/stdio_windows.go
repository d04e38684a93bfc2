package server

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// TakeStdout protects the protocol stream of a stdio server. It returns
// the process's standard output for the protocol alone, then makes
// standard error the process's standard output handle and os.Stdout, so
// that a stray print, in this process or a child it starts with inherited
// handles, lands in the log instead of corrupting the stream. Call it
// first thing in main, before anything could write to stdout.
func TakeStdout() (*os.File, error) {
	protocol := os.Stdout
	if err := windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, windows.Handle(os.Stderr.Fd())); err != nil {
		return nil, fmt.Errorf("point stdout at stderr: %w", err)
	}
	// Go code writes through os.Stdout, not the handle table.
	os.Stdout = os.Stderr
	return protocol, nil
}
