package workspace

import (
	"bytes"
	"regexp"
	"sync"
)

// A hunk header ends, as git writes it, with the "function name" of the
// hunk: the nearest line before the hunk (in the old file) that a rule
// calls a function line. This file holds the rules git applies, and the
// choice of rule by the path's diff attribute.

// funcRule reports whether a line (with its line end) names a function,
// and the text to show for it.
type funcRule func(line []byte) ([]byte, bool)

// maxFuncName is git's buffer for the name (struct func_line's 80 bytes).
const maxFuncName = 80

// defaultFuncName is git's def_ff: a line that starts with a letter, '_'
// or '$', cut to 80 bytes, trailing whitespace removed.
func defaultFuncName(line []byte) ([]byte, bool) {
	if len(line) == 0 {
		return nil, false
	}
	c := line[0]
	if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '$') {
		return nil, false
	}
	return trimFuncName(line[:min(len(line), maxFuncName)]), true
}

// trimFuncName drops trailing C-locale whitespace, as isspace does.
func trimFuncName(b []byte) []byte {
	return bytes.TrimRight(b, " \t\n\v\f\r")
}

// golangFuncName is git's built-in "golang" diff driver's xfuncname: a
// func declaration, or a struct or interface type, with its leading
// whitespace dropped. The patterns are git's (userdiff.c), written for
// RE2: the greedy ".*" ends both at the same place as POSIX's longest
// match does.
var golangFuncName = []*regexp.Regexp{
	regexp.MustCompile(`^[ \t]*(func[ \t]*.*(\{[ \t]*)?)`),
	regexp.MustCompile(`^[ \t]*(type[ \t].*(struct|interface)[ \t]*(\{[ \t]*)?)`),
}

func golangFunc(line []byte) ([]byte, bool) {
	// As ff_regexp: the line end (LF or CRLF) is not matched.
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	for _, re := range golangFuncName {
		if m := re.FindSubmatchIndex(line); m != nil {
			name := line[m[2]:m[3]]
			return trimFuncName(name[:min(len(name), maxFuncName)]), true
		}
	}
	return nil, false
}

// builtinDrivers are the diff drivers git 2.39 knows by name besides
// golang. Their patterns are not reproduced here: a hunk of a file that
// names one gets no function name rather than one git would not show.
var builtinDrivers = map[string]bool{
	"ada": true, "bash": true, "bibtex": true, "cpp": true, "csharp": true, "css": true, "dts": true,
	"elixir": true, "fortran": true, "fountain": true, "html": true, "java": true, "kotlin": true,
	"markdown": true, "matlab": true, "objc": true, "pascal": true, "perl": true, "php": true,
	"python": true, "ruby": true, "rust": true, "scheme": true, "tex": true,
}

// funcRuleFor returns the rule of a diff attribute's value ("" when the
// path has none, or it is set without a driver name): git's default, the
// golang driver, or nil (no function names) for a driver whose patterns
// this package does not have.
func funcRuleFor(driver string) funcRule {
	switch {
	case driver == "golang":
		return golangFunc
	case builtinDrivers[driver]:
		return nil
	}
	return defaultFuncName
}

// diffDrivers remembers the diff attribute of paths, read as git reads
// them for a diff: from the .gitattributes files of the checkout (HEAD's
// tree here) and info/attributes. A bare repository has none. It is
// keyed by HEAD's commit, so a moved HEAD reads afresh.
type diffDrivers struct {
	mu     sync.Mutex
	head   string
	rules  *checkoutRules
	byPath map[string]string
}

// diffDriver returns the diff driver the diff attribute names for p at
// commit head ("" for none).
func (w *Workspace) diffDriver(d *diffDrivers, head, p string) string {
	if w.bare || head == "" {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.head != head || d.rules == nil {
		rules, err := w.checkoutRules(head)
		if err != nil {
			return ""
		}
		d.head, d.rules, d.byPath = head, rules, map[string]string{}
	}
	if v, ok := d.byPath[p]; ok {
		return v
	}
	v := ""
	if a, ok := d.rules.lookup(p, "diff"); ok && a.IsValueSet() {
		v = a.Value()
	}
	if len(d.byPath) >= maxCachedChanges {
		clear(d.byPath)
	}
	d.byPath[p] = v
	return v
}

// funcRuleOf is the rule of a change, with the attributes of commit head
// (HEAD's): as git's builtin_diff, the old path's driver's, else the new
// path's, else the default.
func (s *Snapshot) funcRuleOf(head, oldPath, newPath string) (funcRule, string) {
	ws := s.grant.ws
	ws.repo.mu.Lock()
	d := &ws.repo.historyLocked().drivers
	ws.repo.mu.Unlock()
	for _, p := range []string{oldPath, newPath} {
		if name := ws.diffDriver(d, head, p); name == "golang" || builtinDrivers[name] {
			return funcRuleFor(name), name
		}
	}
	return defaultFuncName, ""
}
