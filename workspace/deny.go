package workspace

import (
	"fmt"
	"path"
	"strings"
)

// DefaultDenyPatterns are the secret patterns every workspace denies, at
// every revision and in the working tree, whatever the caller's policy says.
// A pattern without a slash matches one path component at any depth; a
// pattern with a slash matches a run of trailing components at any depth
// (".aws/credentials"); a leading slash anchors it at the root. Matching is
// case-insensitive, and a denied directory denies everything below it.
// Workspaces add to this list with [WorkspaceConfig.Deny]; nothing removes
// from it.
//
// The list errs towards denying files that usually hold secrets, and stops
// short of names that ordinary source also uses: "env.*" is left out
// (env.go, env.ts, env.d.ts are code), as are a project's own settings.xml,
// gradle.properties and .yarnrc.yml, whose secret-bearing copies live in a
// home directory (.m2/settings.xml, .gradle/gradle.properties) and are
// denied there.
var DefaultDenyPatterns = []string{
	// Environment files in every naming: .env, .env.production,
	// .env-production, .env_local, prod.env, and direnv's .envrc.
	".env", ".env.*", ".env-*", ".env_*", "*.env", ".envrc",
	// Keys, certificates with keys, and key stores.
	"*.pem", "*.key", "*.p8", "*.p12", "*.pfx", "*.pkcs12", "*.jks", "*.keystore", "*.bks",
	"*.ppk", "*.kdbx", "*.asc", "*.gpg",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	".ssh", ".gnupg", ".password-store",
	// Cloud credentials: AWS, Google Cloud, Azure, and the tools that keep
	// keys for them.
	".aws/credentials", ".aws/config", ".config/gcloud", "application_default_credentials.json",
	".azure", "accessTokens.json", "msal_token_cache.*", ".boto", ".s3cfg",
	"credentials.json", "client_secret*.json", "service-account*.json",
	// Containers and Kubernetes.
	".docker/config.json", ".dockercfg", ".kube/config", "kubeconfig", "kubeconfig.yaml", "kubeconfig.yml", "*.kubeconfig",
	// Package registries, forges and git.
	".netrc", "_netrc", ".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml",
	".gem/credentials", ".m2/settings.xml", ".m2/settings-security.xml", ".gradle/gradle.properties",
	".git-credentials", ".config/gh/hosts.yml", ".config/hub",
	// Databases and services.
	".pgpass", ".my.cnf", ".htpasswd", ".vault-token",
	// Terraform: state holds every secret it created; variable files are
	// where its documentation puts them.
	".terraformrc", "*.tfvars", "*.tfvars.json", "*.tfstate", "*.tfstate.backup",
	// Application secret files.
	"secrets.yml", "secrets.yaml", "secrets.json",
}

// denyRule is one compiled deny pattern. Most patterns are a literal name,
// a literal prefix followed by "*", or "*" followed by a literal suffix;
// those are matched without path.Match, which keeps listings fast.
type denyRule struct {
	pattern string
	kind    ruleKind
	lit     string // exact, prefix or suffix literal (lower case)
	glob    Glob   // for ruleName and ruleGlob
	// name is the last component of the pattern: a name must match it
	// before the whole glob is tried. nameGlob says it has wildcards
	// (decided once: a listing tests every entry's name).
	name     string
	nameGlob bool
	// quick, where hasQuick is set, is a byte every name the rule denies
	// has at its start (at its end, with quickEnd): a listing judges
	// every entry by every rule, and most names fail that one comparison.
	quick    byte
	quickEnd bool
	hasQuick bool
}

// withQuick sets the byte a name must have for r to deny it, where r's
// kind gives one.
func (r denyRule) withQuick() denyRule {
	switch {
	case (r.kind == rulePrefix || r.kind == ruleName) && r.lit != "":
		r.quick, r.hasQuick = r.lit[0], true
	case r.kind == ruleSuffix && r.lit != "":
		r.quick, r.quickEnd, r.hasQuick = r.lit[len(r.lit)-1], true, true
	case r.kind == ruleGlob && !r.nameGlob && r.name != "" && r.name != "**":
		r.quick, r.hasQuick = r.name[0], true
	}
	return r
}

// skips reports that lowerName fails r's quick byte.
func (r *denyRule) skips(lowerName string) bool {
	if !r.hasQuick || lowerName == "" {
		return false
	}
	if r.quickEnd {
		return lowerName[len(lowerName)-1] != r.quick
	}
	return lowerName[0] != r.quick
}

type ruleKind int

const (
	ruleExact ruleKind = iota
	rulePrefix
	ruleSuffix
	ruleName // a one-component pattern with other wildcards
	ruleGlob // a multi-component or anchored pattern
)

// denyList holds compiled deny patterns.
type denyList struct {
	exact    map[string]string // lower-case name -> pattern
	rules    []denyRule        // everything else
	patterns []string          // every pattern, as configured
	// listings keeps commit directories with this list's verdict on each
	// entry. It lives here because a cached verdict is only valid for the
	// list that gave it, and a workspace keeps its list for its lifetime.
	listings *listCache
}

func compileDenyList(patterns ...[]string) (*denyList, error) {
	d := &denyList{exact: make(map[string]string), listings: newListCache(maxListedEntries)}
	for _, list := range patterns {
		for _, p := range list {
			if err := d.add(p); err != nil {
				return nil, err
			}
			d.patterns = append(d.patterns, p)
		}
	}
	return d, nil
}

func (d *denyList) add(pattern string) error {
	lower := strings.ToLower(strings.TrimSuffix(pattern, "/"))
	anchored := strings.HasPrefix(lower, "/")
	lower = strings.TrimPrefix(lower, "/")
	if lower == "" {
		return fmt.Errorf("empty deny pattern")
	}
	if anchored || strings.Contains(lower, "/") {
		expr := lower
		if !anchored {
			expr = "**/" + lower
		}
		g, err := ParseGlob(expr)
		if err != nil {
			return fmt.Errorf("deny pattern: %w", err)
		}
		name := lower[strings.LastIndexByte(lower, '/')+1:]
		d.rules = append(d.rules, denyRule{pattern: pattern, kind: ruleGlob, glob: g, name: name, nameGlob: strings.ContainsAny(name, "*?[\\")}.withQuick())
		return nil
	}
	g, err := ParseGlob(lower)
	if err != nil {
		return fmt.Errorf("deny pattern: %w", err)
	}
	body := strings.TrimSuffix(strings.TrimPrefix(lower, "*"), "*")
	switch {
	case !strings.ContainsAny(lower, "*?[\\"):
		d.exact[lower] = pattern
	case strings.ContainsAny(body, "*?[\\"):
		d.rules = append(d.rules, denyRule{pattern: pattern, kind: ruleName, glob: g, lit: literalPrefix(lower)}.withQuick())
	case strings.HasPrefix(lower, "*") && !strings.HasSuffix(lower, "*"):
		d.rules = append(d.rules, denyRule{pattern: pattern, kind: ruleSuffix, lit: body}.withQuick())
	case strings.HasSuffix(lower, "*") && !strings.HasPrefix(lower, "*"):
		d.rules = append(d.rules, denyRule{pattern: pattern, kind: rulePrefix, lit: body}.withQuick())
	default:
		d.rules = append(d.rules, denyRule{pattern: pattern, kind: ruleName, glob: g, lit: literalPrefix(lower)}.withQuick())
	}
	return nil
}

// literalPrefix returns the part of a pattern before its first wildcard.
func literalPrefix(pattern string) string {
	if i := strings.IndexAny(pattern, "*?[\\"); i >= 0 {
		return pattern[:i]
	}
	return pattern
}

// nameMatches is the cheap test of a ruleGlob: does the entry's own name
// match the pattern's last component?
func (r *denyRule) nameMatches(lowerName string) bool {
	if r.name == "**" {
		return true
	}
	if !r.nameGlob {
		return r.name == lowerName
	}
	ok, _ := path.Match(r.name, lowerName)
	return ok
}

// match reports the pattern that denies the clean path p (or one of its
// ancestors), if any.
func (d *denyList) match(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	end := 0
	for end < len(p) {
		next := strings.IndexByte(p[end:], '/')
		if next < 0 {
			end = len(p)
		} else {
			end += next
		}
		if pat, ok := d.matchEntry(p[:end]); ok {
			return pat, true
		}
		end++
	}
	return "", false
}

// matchEntry reports the pattern that denies p itself, assuming its
// ancestors were already checked (as a listing does while descending).
func (d *denyList) matchEntry(p string) (string, bool) {
	name := p[strings.LastIndexByte(p, '/')+1:]
	lowerName := toLowerASCII(name)
	if pat, ok := d.exact[lowerName]; ok {
		return pat, true
	}
	var lowerPath string
	for i := range d.rules {
		r := &d.rules[i]
		if r.skips(lowerName) {
			continue
		}
		switch r.kind {
		case rulePrefix:
			if strings.HasPrefix(lowerName, r.lit) {
				return r.pattern, true
			}
		case ruleSuffix:
			if strings.HasSuffix(lowerName, r.lit) {
				return r.pattern, true
			}
		case ruleName:
			if strings.HasPrefix(lowerName, r.lit) && r.glob.Match(lowerName) {
				return r.pattern, true
			}
		case ruleGlob:
			if !r.nameMatches(lowerName) {
				continue
			}
			if lowerPath == "" {
				lowerPath = toLowerASCII(p)
			}
			if r.glob.Match(lowerPath) {
				return r.pattern, true
			}
		}
	}
	return "", false
}

// toLowerASCII lower-cases s, without allocating when it already is, and
// falls back to Unicode rules for non-ASCII input.
func toLowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return strings.ToLower(s)
		}
		if 'A' <= c && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}
