package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxAlias is the longest alias a model sees.
const MaxAlias = 64

// Internal is the harness's own name of a tool: "<source>.<tool>", e.g.
// "mcp.repo.read_file" or "local.read_file".
func Internal(source, tool string) string { return source + "." + tool }

// alias derives the model's name of a tool: base sanitized to
// [A-Za-z0-9_-], at most MaxAlias characters, with "_" and 8 hex digits of
// the internal name's hash appended when sanitizing or cutting changed it
// or taken reports a collision.
func alias(base, internal string, taken func(string) bool) string {
	var b strings.Builder
	changed := false
	for _, r := range base {
		if r < 0x80 && (r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
			continue
		}
		b.WriteByte('_')
		changed = true
	}
	s := b.String()
	if s == "" {
		s, changed = "tool", true
	}
	if len(s) > MaxAlias {
		s, changed = s[:MaxAlias], true
	}
	if !changed && !taken(s) {
		return s
	}
	sum := sha256.Sum256([]byte(internal))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if len(s) > MaxAlias-len(suffix) {
		s = s[:MaxAlias-len(suffix)]
	}
	return s + suffix
}
