package workspace

import (
	"bytes"
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

// gitDrivers are the diff drivers git 2.39 has built in. Those in
// driverRules are applied; for the others (and for drivers an operator
// configures in git's config, which this package does not read) hunks
// take git's default rule, which may name a different line than git
// would.
var gitDrivers = map[string]bool{
	"ada": true, "bash": true, "bibtex": true, "cpp": true, "csharp": true, "css": true, "dts": true,
	"elixir": true, "fortran": true, "fountain": true, "golang": true, "html": true, "java": true, "kotlin": true,
	"markdown": true, "matlab": true, "objc": true, "pascal": true, "perl": true, "php": true,
	"python": true, "ruby": true, "rust": true, "scheme": true, "tex": true,
}

// funcRules holds the function-name rules of the drivers implemented
// here, by driver name; it is read only.
type funcRules map[string]driverRule

// ruleFor returns the rule of a diff attribute's value ("" when the path
// has none, or it is set without a driver name): the driver's, or git's
// default for a driver not implemented here.
func (fr funcRules) ruleFor(driver string) funcRule {
	if d, ok := fr[driver]; ok {
		return d.match
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
	hc := ws.repo.historyLocked()
	if hc.funcRules == nil {
		hc.funcRules = driverRules()
	}
	d, rules := &hc.drivers, hc.funcRules
	ws.repo.mu.Unlock()
	// git takes the first side whose driver has a pattern: a built-in
	// one, whether or not it is implemented here.
	for _, p := range []string{oldPath, newPath} {
		if name := ws.diffDriver(d, head, p); gitDrivers[name] {
			return rules.ruleFor(name), name
		}
	}
	return defaultFuncName, ""
}
