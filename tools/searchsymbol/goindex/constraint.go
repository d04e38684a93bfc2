package goindex

import (
	"go/build/constraint"
	"path"
	"strings"
)

// fileConstraint returns the build constraint of a file: its //go:build
// expression and, when its name ends in _GOOS, _GOARCH or _GOOS_GOARCH
// (before _test), what the name implies, joined with &&.
func fileConstraint(name, expr string) string {
	implied := nameConstraint(path.Base(name))
	switch {
	case implied == "":
		return expr
	case expr == "":
		return implied
	}
	x, err := constraint.Parse("//go:build " + expr)
	y, _ := constraint.Parse("//go:build " + implied)
	if err != nil {
		return implied + " && (" + expr + ")"
	}
	return (&constraint.AndExpr{X: y, Y: x}).String()
}

// nameConstraint is what go/build reads into a file name: the last one or
// two underscore-separated elements, after the first, when they name a
// known operating system and/or architecture.
func nameConstraint(base string) string {
	name, _, _ := strings.Cut(base, ".")
	i := strings.IndexByte(name, '_')
	if i < 0 {
		return ""
	}
	l := strings.Split(name[i:], "_")
	if n := len(l); n > 0 && l[n-1] == "test" {
		l = l[:n-1]
	}
	n := len(l)
	switch {
	case n >= 2 && knownOS(l[n-2]) && knownArch(l[n-1]):
		return l[n-2] + " && " + l[n-1]
	case n >= 1 && (knownOS(l[n-1]) || knownArch(l[n-1])):
		return l[n-1]
	}
	return ""
}

// knownOS and knownArch say whether a name is a GOOS or GOARCH value that
// go/build recognizes in file names (its syslist.go), past and future ones
// included.
func knownOS(name string) bool {
	switch name {
	case "aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
		"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos":
		return true
	}
	return false
}

func knownArch(name string) bool {
	switch name {
	case "386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64",
		"mips", "mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le",
		"riscv", "riscv64", "s390", "s390x", "sparc", "sparc64", "wasm":
		return true
	}
	return false
}
