package pathrule

import "strings"

// Attacks returns paths that every check of a client's path must refuse,
// whatever the repository or directory holds: absolute forms, bytes that
// are not path text, percent-encoded traversal, escapes from the root, the
// repository's metadata in every spelling, and oversized paths. The
// workspace's tests and the harness's run the same list, so neither side's
// checks can fall behind the other's.
func Attacks() []string {
	return []string{
		// absolute, in every form
		"/etc/passwd", "//etc/passwd", "///x", "/", `C:\Windows\win.ini`, "C:x", "C:/x", "c:",
		`\\server\share\x`, "//server/share/x", "file:///etc/passwd", "file://host/x", "file:x", "https://x/y",
		// separators and bytes that are not path text
		`a\b`, `..\..\x`, "a\x00b", "\x00", "a\nb", "a\rb", "a\tb", "\x1b[31m", "a\x7f", "a\u0085b", "a\xffb",
		// percent-encoded traversal
		"%2e%2e/%2e%2e/etc/passwd", "..%2fetc%2fpasswd", "%2E%2E", "a%2Fb", "a%5cb", "a%00b", "%252e%252e/x",
		// leaving the root, including into a prefix sibling
		"..", "../x", "a/../../x", "../repo-evil/secret", "a/b/../../../repo-evil",
		// repository metadata, in every case and lookalike
		".git", ".git/config", ".GIT/HEAD", "a/.Git/x", "a/../.git/config", ".git/", "./.git",
		".git.", ".git ", ".git. . ", "GIT~1/config", "git~1", ".g\u200cit/config", ".gi\ufefft",
		"\uff0egit/config", ".\uff47\uff49\uff54", ".Git\u200d",
		// size limits
		strings.Repeat("a/", 10000) + "a", strings.Repeat("a", MaxBytes+1), strings.Repeat("a/", 256) + "a",
	}
}
