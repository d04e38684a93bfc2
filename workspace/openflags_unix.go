//go:build unix

package workspace

import "syscall"

// openNoFollow makes opening a working tree file fail on a symlink, and not
// block on a FIFO swapped in after it was inspected.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
