package client

import (
	"os"

	"golang.org/x/sys/unix"
)

// answerPipeBytes is the capacity asked for the pipe the server writes its
// answers into: the default 64 KiB made a server writing a 1 MiB page stop
// sixteen times for the client to read, holding its write, and the small
// answers queued behind it, that much longer. 1 MiB is what an unprivileged
// process may ask for by default (/proc/sys/fs/pipe-max-size).
const answerPipeBytes = 1 << 20

// growPipe asks for the pipe of f to hold answerPipeBytes. It is best
// effort: a system that refuses (a lower maximum, the user's pipe quota
// spent) keeps the default, which works, only slower.
func growPipe(f *os.File) error {
	// Through SyscallConn: Fd would put the pipe in blocking mode.
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) {
		_, ferr = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, answerPipeBytes)
	}); err != nil {
		return err
	}
	return ferr
}
