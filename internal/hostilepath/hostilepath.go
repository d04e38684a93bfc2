// Package hostilepath is the list of paths a caller may name to reach
// outside a workspace or into its repository metadata. workspace.CleanPath
// and the harness's pathcheck must both refuse every one of them; their
// tests share this list so that the two cannot drift apart.
package hostilepath

import "strings"

// MaxPathBytes is workspace.MaxPathBytes, repeated here so that this
// package imports nothing the packages it tests import.
const MaxPathBytes = 4096

// Paths returns the list, new on each call.
func Paths() []string {
	return []string{
		// absolute, in every form
		"/etc/passwd", "//etc/passwd", "///x", "/", `C:\Windows\win.ini`, "C:x", "C:/x", "c:",
		`\\server\share\x`, "//server/share/x", "file:///etc/passwd", "file://host/x", "file:x", "https://x/y",
		// separators and bytes that are not path text
		`a\b`, `..\..\x`, "a\x00b", "\x00", "a\nb", "a\rb", "a\tb", "\x1b[31m", "a\x7f", "a\u0085b", "a\xffb",
		// percent-encoded traversal
		"%2e%2e/%2e%2e/etc/passwd", "..%2fetc%2fpasswd", "%2E%2E", "a%2Fb", "a%5cb", "a%00b", "%252e%252e/x", "%2e%2e/x",
		// leaving the root, including into a prefix sibling
		"..", "../x", "a/../../x", "../repo-evil/secret", "a/b/../../../repo-evil",
		// repository metadata, in every case and lookalike
		".git", ".git/config", ".GIT/HEAD", "a/.Git/x", "a/../.git/config", ".git/", "./.git",
		".git.", ".git ", ".git. . ", "GIT~1/config", "git~1", ".g\u200cit/config", ".gi\ufefft",
		"\uff0egit/config", ".\uff47\uff49\uff54", ".Git\u200d",
		// size limits
		strings.Repeat("a/", 10000) + "a", strings.Repeat("a", MaxPathBytes+1), strings.Repeat("a/", 256) + "a",
	}
}
