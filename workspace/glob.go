package workspace

import (
	"fmt"
	"path"
	"strings"
)

// A Glob matches slash-separated paths. Each pattern component is matched
// with [path.Match] against one path component, and a component "**"
// matches zero or more whole components: "**/*.go" matches "a.go" and
// "x/y/a.go"; "docs/**" matches "docs" and everything below it.
type Glob struct {
	pattern string
	parts   []string
}

// ParseGlob checks a pattern and returns it compiled. A leading "/" is
// ignored: patterns are always relative to the workspace root.
func ParseGlob(pattern string) (Glob, error) {
	p := strings.Trim(pattern, "/")
	if p == "" {
		return Glob{}, fmt.Errorf("empty glob pattern")
	}
	if len(p) > MaxPathBytes || strings.ContainsAny(p, "\\\x00") {
		return Glob{}, fmt.Errorf("glob pattern %s is too long or holds a backslash or NUL", quoteInput(pattern))
	}
	parts := strings.Split(p, "/")
	if len(parts) > MaxPathComponents {
		return Glob{}, fmt.Errorf("glob pattern has more than %d components", MaxPathComponents)
	}
	for _, part := range parts {
		if part == "**" {
			continue
		}
		if _, err := path.Match(part, ""); err != nil {
			return Glob{}, fmt.Errorf("glob pattern %s: %w", quoteInput(pattern), err)
		}
	}
	return Glob{pattern: p, parts: compactStars(parts)}, nil
}

// compactStars folds runs of "**" into one, which keeps matching linear in
// practice.
func compactStars(parts []string) []string {
	out := parts[:0:0]
	for _, p := range parts {
		if p == "**" && len(out) > 0 && out[len(out)-1] == "**" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// String returns the pattern as given (without surrounding slashes).
func (g Glob) String() string { return g.pattern }

// Match reports whether the clean path p matches the whole pattern.
func (g Glob) Match(p string) bool {
	return matchParts(g.parts, splitPath(p))
}

// MatchPrefix reports whether some path below (or at) directory dir could
// match the pattern. A listing uses it to decide whether to descend.
func (g Glob) MatchPrefix(dir string) bool {
	return prefixParts(g.parts, splitPath(dir))
}

func splitPath(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func matchParts(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			rest := pat[1:]
			if len(rest) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchParts(rest, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// prefixParts reports whether name could be extended to match pat.
func prefixParts(pat, name []string) bool {
	for len(name) > 0 {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return true
}
