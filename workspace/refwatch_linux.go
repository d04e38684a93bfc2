package workspace

import (
	"errors"
	"sync"
	"syscall"
	"unsafe"
)

// refWatch tells the ref cache whether anything changed in the directories
// holding the ref files its entries depend on, with one read of an inotify
// descriptor instead of an lstat of each file. The kernel queues an event
// before the system call that changed a watched directory's entry returns,
// so a change another process finished before a call began is in the queue
// when that call reads it.
//
// Every event counts, whatever file it names: the directories also hold
// the index and other files git rewrites, and each of their events only
// costs the entries one check by lstat, as every call made before. Events
// are counted in generations: an entry checked by lstat in generation g,
// with its directories watched before the check, is served without one
// for as long as the generation stays g.
//
// Only directories on local file systems are watched (a network file
// system reports no change made by another machine); a nil refWatch
// watches nothing and the cache stamps every file on every call. One
// refWatch serves all of a registry's repositories, as the kernel allows a
// user few inotify instances (128 by default): an event in any of them
// sends every entry back to its lstat check once.
type refWatch struct {
	mu     sync.Mutex
	fd     int
	dirs   map[string]int32 // watched directory -> watch descriptor
	gen    uint64           // starts at 1; an entry's 0 means never checked
	broken bool             // a read failed, or closed: watch nothing more
	buf    []byte
}

// maxWatchedDirs bounds the directories a registry watches: ref names
// come from callers, and each nested directory of refs/ is a watch.
const maxWatchedDirs = 1024

// watchMask is every change to a directory's entries or to the directory
// itself: a file created, removed, renamed, written or touched.
const watchMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MODIFY | syscall.IN_ATTRIB |
	syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF |
	syscall.IN_ONLYDIR

// newRefWatch returns a watch of no directory yet, or nil when inotify is
// unavailable (the per-user limit of instances reached, for one).
func newRefWatch() *refWatch {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &refWatch{fd: fd, dirs: make(map[string]int32), gen: 1, buf: make([]byte, 4096)}
}

// localFS reports whether dir is on a file system whose changes all pass
// through this kernel, so that inotify reports every one of them.
func localFS(dir string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case 0xEF53, // ext2, ext3, ext4
		0x58465342, // xfs
		0x9123683E, // btrfs
		0x01021994, // tmpfs
		0x2FC12FC1, // zfs
		0xF2F52010: // f2fs
		return true
	}
	return false
}

// poll reads the events queued since the last poll and returns the
// generation they leave; ok is false when nothing is watched (a nil watch,
// or one whose descriptor failed), and then no entry may skip its lstat.
func (w *refWatch) poll() (gen uint64, ok bool) {
	if w == nil {
		return 0, false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken {
		return 0, false
	}
	for {
		n, err := syscall.Read(w.fd, w.buf)
		if errors.Is(err, syscall.EAGAIN) {
			return w.gen, true
		}
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			w.broken = true
			return 0, false
		}
		w.gen++
		w.forgetRemoved(w.buf[:n])
	}
}

// forgetRemoved drops the directories whose watch the kernel removed (the
// directory was deleted, or its file system unmounted) or that moved
// (the watch follows the directory, not its path), and after a queue
// overflow every directory, so that the next check of an entry under them
// watches their paths again, or stamps.
func (w *refWatch) forgetRemoved(events []byte) {
	const gone = syscall.IN_IGNORED | syscall.IN_MOVE_SELF | syscall.IN_Q_OVERFLOW
	for len(events) >= syscall.SizeofInotifyEvent {
		ev := (*syscall.InotifyEvent)(unsafe.Pointer(&events[0]))
		if ev.Mask&gone != 0 {
			for dir, wd := range w.dirs {
				if wd == ev.Wd || ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
					delete(w.dirs, dir)
					if ev.Mask&syscall.IN_MOVE_SELF != 0 {
						syscall.InotifyRmWatch(w.fd, uint32(wd))
					}
				}
			}
		}
		size := syscall.SizeofInotifyEvent + int(ev.Len)
		if size > len(events) {
			break
		}
		events = events[size:]
	}
}

// ensure watches each directory not watched yet and reports whether all of
// dirs are watched. It must be called before the lstat checks whose
// outcome the watch is to keep valid.
func (w *refWatch) ensure(dirs []string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.broken {
		return false
	}
	for _, d := range dirs {
		if _, ok := w.dirs[d]; ok {
			continue
		}
		if len(w.dirs) >= maxWatchedDirs || !localFS(d) {
			return false
		}
		wd, err := syscall.InotifyAddWatch(w.fd, d, watchMask)
		if err != nil {
			return false // an absent directory, for one: stamp its files instead
		}
		w.dirs[d] = int32(wd)
	}
	return true
}

// close releases the descriptor; the watch watches nothing after.
func (w *refWatch) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.broken {
		syscall.Close(w.fd)
		w.broken = true
	}
}
