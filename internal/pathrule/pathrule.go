// Package pathrule is the one home of the rules for a path a client may
// name inside a repository: the grammar [Clean] enforces (no absolute forms,
// no escapes, no .git in any spelling, nothing that is not path text) and
// the names a tree entry may have. The workspace layer applies it to every
// path a caller names, and the harness to every path a tool call names, so
// the same attack list (internal/hostilepath) fails both.
package pathrule

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// Limits on a path a caller may name.
const (
	MaxBytes      = 4096
	MaxComponents = 256
)

// Clean normalizes a caller-supplied path before any I/O. It returns the
// path relative to the workspace root, slash-separated, without leading or
// trailing slashes; the root itself is "". It refuses, with an invalid_input
// [errclass.Error]:
//
//   - absolute forms: /x, //x, C:\x, C:x, \\server\share, file://x;
//   - backslashes, NUL, control characters and invalid UTF-8;
//   - percent-encoded dots, slashes, backslashes, percent signs and control
//     characters (%2e%2e%2f and friends);
//   - ".." that would leave the root;
//   - any component that is ".git" in any case, or that looks like it once
//     normalized (NFKC, case folding, ignorable code points, trailing dots
//     and spaces, the 8.3 short name GIT~1);
//   - more than [MaxBytes] bytes or [MaxComponents] components.
//
// A nil error guarantees that the result is a local path (no "..", no
// leading slash) with no component that names the repository's metadata.
func Clean(p string) (string, error) {
	if err := checkSyntax(p); err != nil {
		return "", err
	}
	var out []string
	for comp := range strings.SplitSeq(p, "/") {
		switch comp {
		case "", ".":
			continue
		case "..":
			if len(out) == 0 {
				return "", pathError(p, "leaves the workspace root")
			}
			out = out[:len(out)-1]
			continue
		}
		if IsGitDirName(comp) {
			return "", pathError(p, "names the repository metadata (.git)")
		}
		out = append(out, comp)
	}
	clean := strings.Join(out, "/")
	if hasScheme(clean) { // "./C:x" and "a/../file:/x" clean to absolute forms
		return "", pathError(p, "is absolute (drive letter or URL) once normalized")
	}
	return clean, nil
}

// checkSyntax applies the checks that do not depend on components.
func checkSyntax(p string) error {
	switch {
	case len(p) > MaxBytes:
		return errclass.Errorf(errclass.InvalidInput, "path is longer than %d bytes", MaxBytes)
	case strings.Count(p, "/") >= MaxComponents:
		return errclass.Errorf(errclass.InvalidInput, "path has more than %d components", MaxComponents)
	case !utf8.ValidString(p):
		return pathError(p, "is not valid UTF-8")
	case strings.ContainsRune(p, '\\'):
		return pathError(p, "contains a backslash; use forward slashes")
	case HasControl(p):
		return pathError(p, "contains a NUL or control character")
	case strings.HasPrefix(p, "/"):
		return pathError(p, "is absolute; give a path relative to the workspace root")
	case hasScheme(p):
		return pathError(p, "is absolute (drive letter or URL); give a path relative to the workspace root")
	case hasEncodedSeparator(p):
		return pathError(p, "contains percent-encoded dots, slashes or control characters")
	}
	return nil
}

// HasControl reports whether s holds a C0 or C1 control character or DEL.
func HasControl(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) {
			return true
		}
	}
	return false
}

// hasScheme reports whether p starts like a drive letter (C:, C:x, C:\x) or
// a URL (file:..., scheme:/...). Other names with a colon ("ab:c") are
// ordinary file names.
func hasScheme(p string) bool {
	first, rest, _ := strings.Cut(p, "/")
	scheme, _, ok := strings.Cut(first, ":")
	if !ok || scheme == "" {
		return false
	}
	for i, r := range scheme {
		isAlpha := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		if i == 0 && !isAlpha {
			return false
		}
		if !isAlpha && !('0' <= r && r <= '9') && r != '+' && r != '-' && r != '.' {
			return false
		}
	}
	urlLike := strings.HasSuffix(first, ":") && (rest != "" || strings.HasSuffix(p, "/"))
	return len(scheme) == 1 || strings.EqualFold(scheme, "file") || urlLike
}

// hasEncodedSeparator reports whether p holds a %XX escape that decodes to a
// byte that could change how the path is split or resolved by a layer that
// decodes it again.
func hasEncodedSeparator(p string) bool {
	for i := 0; i+2 < len(p); i++ {
		if p[i] != '%' {
			continue
		}
		hi, ok1 := unhex(p[i+1])
		lo, ok2 := unhex(p[i+2])
		if !ok1 || !ok2 {
			continue
		}
		switch b := hi<<4 | lo; {
		case b == '.', b == '/', b == '\\', b == '%', b == ':', b < 0x20, b >= 0x7f:
			return true
		}
	}
	return false
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// IsGitDirName reports whether a single path component would name the
// repository's metadata directory on some filesystem: ".git" in any case,
// a Unicode compatibility form of it, with ignorable code points (zero-width
// joiners, byte order marks: HFS+ ignores them), trailing dots or spaces
// (NTFS strips them), or the NTFS 8.3 short name "git~1".
func IsGitDirName(comp string) bool {
	if len(comp) < 4 {
		return false
	}
	if isASCII(comp) {
		// Only ASCII case and trailing dots or spaces can matter.
		folded := strings.ToLower(strings.TrimRight(comp, ". "))
		return folded == ".git" || folded == "git~1"
	}
	folded := foldComponent(comp)
	return folded == ".git" || folded == "git~1"
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldComponent maps a component to the form under which filesystems that
// normalize or ignore case would consider two names equal.
func foldComponent(comp string) string {
	s := norm.NFKC.String(comp)
	s = cases.Fold().String(s)
	s = strings.Map(func(r rune) rune {
		if isIgnorable(r) {
			return -1
		}
		return r
	}, s)
	return strings.TrimRight(s, ". ")
}

// isIgnorable reports code points that HFS+ and some tools drop when
// comparing names (Unicode default-ignorable code points in common use).
func isIgnorable(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x034F, r == 0x061C, r == 0x180E:
		return true
	case 0x200B <= r && r <= 0x200F, 0x202A <= r && r <= 0x202E, 0x2060 <= r && r <= 0x206F:
		return true
	case r == 0xFEFF, 0xFE00 <= r && r <= 0xFE0F, 0xFFF0 <= r && r <= 0xFFF8:
		return true
	case 0xE0000 <= r && r <= 0xE0FFF:
		return true
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// ValidEntryName reports whether a name read from a tree or a directory can
// be shown to a caller as one path component. Hostile trees may hold names
// that git itself would refuse to check out.
func ValidEntryName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 1024 {
		return false
	}
	if strings.ContainsAny(name, "/\\") || HasControl(name) || !utf8.ValidString(name) {
		return false
	}
	return !IsGitDirName(name)
}

// pathError returns an invalid_input error quoting (a bounded prefix of) the
// caller's own path.
func pathError(p, why string) error {
	return errclass.Errorf(errclass.InvalidInput, "path %s %s", Quote(p), why)
}

// Quote quotes a caller-supplied string for an error message, cut to a
// length that keeps messages small.
func Quote(s string) string {
	const max = 96
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "..."
	}
	return strconv.Quote(s)
}
