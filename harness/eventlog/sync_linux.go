package eventlog

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncData makes f's data durable, and of its metadata what reading the
// data needs (its size): lines written over reserved zeros change
// nothing else, so no journal commit is needed for them.
func syncData(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}
