//go:build unix

package verify

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// shareCache makes dir and its entry directories (a for actions, o for
// outputs; see cacheprog.go) writable by group gid, setgid so that what
// sandboxes add belongs to the group too, and its files readable by the
// group: checks run as different uids of that group and read what earlier
// checks wrote. A cache written by an older server, which ran every check
// as one uid with private modes, is brought to these modes once.
func shareCache(dir string, gid int) error {
	const dirMode = 0o770 | fs.ModeSetgid
	for _, sub := range []string{"a", "o"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return err
		}
	}
	if st, err := os.Stat(dir); err == nil && st.Mode()&(fs.ModePerm|fs.ModeSetgid) == dirMode {
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid == 0 && int(sys.Gid) == gid {
			return nil
		}
	}
	// The top is set last, so an interrupted repair is done again.
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			// The go command writes no other kind of file; root must not
			// follow a link a check planted to some host file.
			return nil
		}
		return shareEntry(path, d.IsDir(), gid)
	})
	if err != nil {
		return err
	}
	return shareEntry(dir, true, gid)
}

func shareEntry(path string, isDir bool, gid int) error {
	if err := os.Lchown(path, 0, gid); err != nil {
		return err
	}
	if isDir {
		return os.Chmod(path, 0o770|fs.ModeSetgid)
	}
	return os.Chmod(path, 0o640)
}
