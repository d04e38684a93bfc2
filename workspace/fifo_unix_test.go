//go:build unix

package workspace

import (
	"syscall"
	"testing"
)

func makeFIFO(t *testing.T, name string) {
	t.Helper()
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Fatal(err)
	}
}
