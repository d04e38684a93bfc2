package client

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestGrowPipe checks that the answer pipe is grown to answerPipeBytes and
// stays non-blocking (os.File.Fd would have made it blocking).
func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := growPipe(r); err != nil {
		t.Skipf("this system refuses a %d-byte pipe: %v", answerPipeBytes, err)
	}
	raw, err := r.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var size, flags int
	raw.Control(func(fd uintptr) {
		size, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
		flags, _ = unix.FcntlInt(fd, unix.F_GETFL, 0)
	})
	if size != answerPipeBytes || flags&unix.O_NONBLOCK == 0 {
		t.Errorf("pipe of %d bytes, non-blocking %v; want %d, true", size, flags&unix.O_NONBLOCK != 0, answerPipeBytes)
	}
}
