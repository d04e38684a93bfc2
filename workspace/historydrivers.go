package workspace

import (
	"bytes"
	"regexp"
)

// The built-in diff drivers whose function-name rules this package
// applies, as git's userdiff table writes them (POSIX extended regular
// expressions, one per line, a leading '!' making a line's match say "not
// a function line"). Each is written here for RE2: every pattern is
// anchored at the line's start, and its group ends at the line's end or
// where a greedy ".*" does, so RE2's leftmost-first match spans what
// POSIX's leftmost-longest does. Each is compared with git's hunk headers
// in TestFuncNameDriversMatchGit.

// funcPattern is one line of a driver's rule.
type funcPattern struct {
	re     *regexp.Regexp
	negate bool
}

// driverRule is a driver's rule: its patterns, tried in order.
type driverRule []funcPattern

func pat(expr string) funcPattern    { return funcPattern{re: regexp.MustCompile(expr)} }
func notPat(expr string) funcPattern { return funcPattern{re: regexp.MustCompile(expr), negate: true} }

// driverRules compiles the rules of the drivers implemented here.
func driverRules() funcRules {
	return funcRules{
		// C and C++: top-level lines that start an identifier (or
		// "::"), but not labels and access specifiers ("public:").
		"cpp": {
			notPat(`^[ \t]*[A-Za-z_][A-Za-z_0-9]*:[[:space:]]*($|/[/*])`),
			pat(`^((::[[:space:]]*)?[A-Za-z_].*)$`),
		},
		// Go: func declarations, struct and interface types.
		"golang": {
			pat(`^[ \t]*(func[ \t]*.*(\{[ \t]*)?)`),
			pat(`^[ \t]*(type[ \t].*(struct|interface)[ \t]*(\{[ \t]*)?)`),
		},
		// Java: class, enum and interface declarations and method
		// definitions, not statements that look like calls.
		"java": {
			notPat(`^[ \t]*(catch|do|for|if|instanceof|new|return|switch|throw|while)`),
			pat(`^[ \t]*(([a-z-]+[ \t]+)*(class|enum|interface|record)[ \t]+.*)$`),
			pat(`^[ \t]*(([A-Za-z_<>&][][?&<>.,A-Za-z_0-9]*[ \t]+)+[A-Za-z_][A-Za-z_0-9]*[ \t]*\([^;]*)$`),
		},
		// Markdown: ATX headings.
		"markdown": {
			pat(`^ {0,3}#{1,6}[ \t].*`),
		},
		// Python: class and (async) def lines, indented or not.
		"python": {
			pat(`^[ \t]*((class|(async[ \t]+)?def)[ \t].*)$`),
		},
		// Rust: items (fn, struct, enum, union, mod, trait, impl,
		// macro_rules!) with their visibility and qualifiers.
		"rust": {
			pat(`^[\t ]*((pub(\([^\)]+\))?[\t ]+)?((async|const|unsafe|extern([\t ]+"[^"]+"))[\t ]+)?(struct|enum|union|mod|trait|fn|impl|macro_rules!)[< \t]+[^;]*)$`),
		},
	}
}

// match is git's ff_regexp: the first pattern that matches the line
// (without its LF or CRLF) decides; a negated one says no. The name is
// the first group when the pattern has one that took part in the match,
// else the whole match, cut to 80 bytes and its trailing whitespace
// dropped.
func (d driverRule) match(line []byte) ([]byte, bool) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	for _, p := range d {
		m := p.re.FindSubmatchIndex(line)
		if m == nil {
			continue
		}
		if p.negate {
			return nil, false
		}
		name := line[m[0]:m[1]]
		if len(m) > 2 && m[2] >= 0 {
			name = line[m[2]:m[3]]
		}
		return trimFuncName(name[:min(len(name), maxFuncName)]), true
	}
	return nil, false
}
