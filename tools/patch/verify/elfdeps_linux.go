//go:build linux

package verify

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
)

// libDirs are where the dynamic loader looks for a library without a
// cache: the sandbox has no /etc/ld.so.cache.
var libDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
	"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// sharedLibs returns the files a dynamically linked binary needs to start
// (its interpreter and libraries, by the paths the loader will look them
// up at), so the sandbox can show the helper those and nothing more. A
// static binary needs none.
func sharedLibs(binary string) ([]string, error) {
	f, err := elf.Open(binary)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var files []string
	for _, p := range f.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		buf := make([]byte, p.Filesz)
		if _, err := p.ReadAt(buf, 0); err != nil {
			return nil, fmt.Errorf("reading the interpreter of %s: %w", binary, err)
		}
		if len(buf) > 0 && buf[len(buf)-1] == 0 {
			buf = buf[:len(buf)-1]
		}
		files = append(files, string(buf))
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return nil, err
	}
	for _, lib := range libs {
		found := ""
		for _, dir := range libDirs {
			if _, err := os.Stat(filepath.Join(dir, lib)); err == nil {
				found = filepath.Join(dir, lib)
				break
			}
		}
		if found == "" {
			return nil, fmt.Errorf("%s needs %s, which is in none of %v", binary, lib, libDirs)
		}
		files = append(files, found)
	}
	return files, nil
}
