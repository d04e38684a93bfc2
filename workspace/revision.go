package workspace

import (
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/repo-mcp/repo-mcp/errclass"
)

// Revision grammar limits.
const (
	// WorktreeRevision is the special revision that reads the files on disk.
	WorktreeRevision = "worktree"
	// MaxRevisionBytes bounds a revision string.
	MaxRevisionBytes = 256
	// MaxAncestry bounds the total number of ~N/^N steps in a revision.
	MaxAncestry = 10000
	// MinShortSHA is the shortest abbreviated commit SHA accepted.
	MinShortSHA = 7
	// maxTagDepth bounds how many annotated tags are peeled in a row.
	maxTagDepth = 16
)

// Revision is a resolved revision: what the caller asked for, the full
// commit SHA it names (or "worktree"), and the ref it was found through.
type Revision struct {
	Input string // as given ("" became "HEAD")
	SHA   string // full commit SHA, or "worktree"
	// Ref is what a policy's refs patterns are matched against: a full ref
	// name ("refs/heads/main"), "HEAD", "commit" for a SHA, or "worktree".
	Ref string
}

// revSpec is a parsed revision: a base name and ancestry steps.
type revSpec struct {
	input string
	base  string
	steps []revStep
}

type revStep struct {
	parent bool // '^N' (the Nth parent) rather than '~N' (N first parents back)
	n      int
}

// parseRevision checks the syntax of a revision. It accepts a full or
// abbreviated SHA, a branch, tag or full ref name, HEAD, or worktree,
// followed by ~N and ^N steps. Everything git would interpret further (a
// leading "-", reflog @{...}, :/text, rev:path, ^{...}, ranges) is
// invalid_input.
func parseRevision(s string) (revSpec, error) {
	if s == "" {
		s = "HEAD"
	}
	if err := checkRevisionSyntax(s); err != nil {
		return revSpec{}, err
	}
	spec := revSpec{input: s}
	cut := strings.IndexAny(s, "~^")
	if cut < 0 {
		spec.base = s
	} else {
		spec.base = s[:cut]
		steps, err := parseSteps(s, s[cut:])
		if err != nil {
			return revSpec{}, err
		}
		spec.steps = steps
	}
	if spec.base == "" {
		return revSpec{}, revError(s, "has no name before ~ or ^")
	}
	if spec.base == WorktreeRevision && len(spec.steps) > 0 {
		return revSpec{}, revError(s, "applies ~ or ^ to worktree, which is not a commit")
	}
	if !isHex(spec.base) && !validRefName(spec.base) {
		return revSpec{}, revError(s, "is not a valid branch, tag or ref name")
	}
	return spec, nil
}

func checkRevisionSyntax(s string) error {
	switch {
	case len(s) > MaxRevisionBytes:
		return errclass.Errorf(errclass.InvalidInput, "revision is longer than %d bytes", MaxRevisionBytes)
	case !utf8.ValidString(s):
		return revError(s, "is not valid UTF-8")
	case strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return revError(s, "contains whitespace or control characters")
	case s[0] == '-':
		return revError(s, "starts with '-'")
	case strings.Contains(s, "@{"):
		return revError(s, "uses a reflog form (@{...}), which is not supported")
	case strings.Contains(s, ":"):
		return revError(s, "contains ':' (rev:path and :/text forms are not supported; pass the path separately)")
	case strings.Contains(s, "^{"):
		return revError(s, "uses a ^{...} form, which is not supported")
	case strings.Contains(s, ".."):
		return revError(s, "contains '..' (ranges are not supported)")
	case strings.ContainsAny(s, "?*[\\"):
		return revError(s, "contains a glob or backslash character")
	}
	return nil
}

// parseSteps parses a suffix like "~3^2~".
func parseSteps(input, suffix string) ([]revStep, error) {
	var steps []revStep
	total := 0
	for i := 0; i < len(suffix); {
		op := suffix[i]
		if op != '~' && op != '^' {
			return nil, revError(input, "has characters after ~N/^N steps")
		}
		i++
		j := i
		for j < len(suffix) && '0' <= suffix[j] && suffix[j] <= '9' {
			j++
		}
		n := 1
		if j > i {
			if j-i > 5 {
				return nil, revError(input, fmt.Sprintf("has an ancestry step above %d", MaxAncestry))
			}
			n = atoi(suffix[i:j])
		}
		i = j
		if op == '^' && n > 64 {
			return nil, revError(input, "asks for a parent number above 64")
		}
		if op == '~' {
			total += n
		} else {
			total++
		}
		if total > MaxAncestry {
			return nil, revError(input, fmt.Sprintf("walks more than %d commits back", MaxAncestry))
		}
		steps = append(steps, revStep{parent: op == '^', n: n})
	}
	return steps, nil
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return s != ""
}

// validRefName applies git's check-ref-format rules that matter here, so
// a name cannot address a file outside refs/ when the storage reads it.
func validRefName(name string) bool {
	if name == "@" || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") {
		return false
	}
	for comp := range strings.SplitSeq(name, "/") {
		if comp == "" || comp[0] == '.' || strings.HasSuffix(comp, ".lock") {
			return false
		}
	}
	return true
}

func revError(rev, why string) error {
	return errclass.Errorf(errclass.InvalidInput, "revision %s %s", quoteInput(rev), why)
}

// resolve turns a parsed revision into a commit.
func (w *Workspace) resolve(spec revSpec) (Revision, plumbing.Hash, error) {
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	h, ref, err := w.resolveBaseLocked(spec)
	if err != nil {
		return Revision{}, plumbing.ZeroHash, err
	}
	for _, st := range spec.steps {
		if h, err = w.stepLocked(h, st, spec.input); err != nil {
			return Revision{}, plumbing.ZeroHash, err
		}
	}
	return Revision{Input: spec.input, SHA: h.String(), Ref: ref}, h, nil
}

func (w *Workspace) resolveBaseLocked(spec revSpec) (plumbing.Hash, string, error) {
	base := spec.base
	if base == "HEAD" {
		ref, err := w.repo.refs.resolve(w.repo.storage, plumbing.HEAD)
		if err != nil {
			return plumbing.ZeroHash, "", w.refError(spec.input, err)
		}
		h, err := w.peelLocked(ref.Hash(), spec.input)
		return h, "HEAD", err
	}
	if len(base) == 40 && isHex(base) {
		h, err := w.peelLocked(plumbing.NewHash(base), spec.input)
		return h, "commit", err
	}
	refs := w.matchingRefsLocked(base)
	var commits []plumbing.Hash
	var err error
	if len(base) >= MinShortSHA && isHex(base) {
		if commits, err = w.commitsWithPrefixLocked(strings.ToLower(base)); err != nil {
			return plumbing.ZeroHash, "", err
		}
	}
	switch {
	case len(refs)+len(commits) == 0:
		return plumbing.ZeroHash, "", errclass.Errorf(errclass.NotFound,
			"revision %s does not exist in workspace %q", quoteInput(spec.input), w.id)
	case len(refs)+len(commits) > 1:
		return plumbing.ZeroHash, "", ambiguous(spec.input, refs, commits)
	case len(commits) == 1:
		return commits[0], "commit", nil
	}
	h, err := w.peelLocked(refs[0].Hash(), spec.input)
	return h, refs[0].Name().String(), err
}

// matchingRefsLocked returns the refs a short name can mean: the full name
// itself, or refs/heads, refs/tags and refs/remotes under it.
func (w *Workspace) matchingRefsLocked(name string) []*plumbing.Reference {
	candidates := []string{"refs/" + name, "refs/heads/" + name, "refs/tags/" + name, "refs/remotes/" + name}
	if strings.HasPrefix(name, "refs/") {
		candidates = []string{name}
	}
	var found []*plumbing.Reference
	for _, c := range candidates {
		// Any failure (no such ref, a directory of refs by that name) means
		// the name does not resolve through this candidate.
		if ref, err := w.repo.refs.resolve(w.repo.storage, plumbing.ReferenceName(c)); err == nil {
			found = append(found, plumbing.NewHashReference(plumbing.ReferenceName(c), ref.Hash()))
		}
	}
	return found
}

// commitsWithPrefixLocked returns the commits (annotated tags peeled)
// whose SHA starts with a hex prefix.
func (w *Workspace) commitsWithPrefixLocked(prefix string) ([]plumbing.Hash, error) {
	raw, err := hex.DecodeString(prefix[:len(prefix)&^1])
	if err != nil {
		return nil, errclass.Errorf(errclass.InvalidInput, "revision %s is not hexadecimal", quoteInput(prefix))
	}
	hashes, err := w.repo.storage.HashesWithPrefix(raw)
	if err != nil {
		return nil, w.internalError("looking up an abbreviated SHA", err)
	}
	seen := make(map[plumbing.Hash]bool)
	var commits []plumbing.Hash
	for _, h := range hashes {
		if !strings.HasPrefix(h.String(), prefix) {
			continue
		}
		c, err := w.peelLocked(h, prefix)
		if err != nil || seen[c] {
			continue // trees and blobs do not name a commit
		}
		seen[c] = true
		commits = append(commits, c)
	}
	return commits, nil
}

func ambiguous(input string, refs []*plumbing.Reference, commits []plumbing.Hash) error {
	var names []string
	for _, r := range refs {
		names = append(names, r.Name().String())
	}
	for _, c := range commits {
		names = append(names, c.String()[:12])
	}
	const show = 10
	more := ""
	if len(names) > show {
		more = fmt.Sprintf(" and %d more", len(names)-show)
		names = names[:show]
	}
	e := errclass.Errorf(errclass.InvalidInput, "revision %s is ambiguous: it could be %s%s",
		quoteInput(input), strings.Join(names, ", "), more)
	e.Details = map[string]any{"candidates": names}
	return e.WithHint("give a full ref name or a longer SHA")
}

// peelLocked follows annotated tags to the commit they name. Objects never
// change, so what a hash peels to is remembered; failures are not, as a
// missing object may yet arrive.
func (w *Workspace) peelLocked(h plumbing.Hash, input string) (plumbing.Hash, error) {
	r := w.repo
	if c, ok := r.peeled[h]; ok {
		return c, nil
	}
	c, err := w.peelUncachedLocked(h, input)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if len(r.peeled) >= maxCachedCommits {
		clear(r.peeled)
	}
	r.peeled[h] = c
	return c, nil
}

func (w *Workspace) peelUncachedLocked(h plumbing.Hash, input string) (plumbing.Hash, error) {
	for range maxTagDepth {
		obj, err := w.repo.encodedObjectLocked(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return plumbing.ZeroHash, errclass.Errorf(errclass.NotFound,
				"revision %s does not exist in workspace %q%s", quoteInput(input), w.id, w.shallowNoteLocked())
		}
		if err != nil {
			return plumbing.ZeroHash, w.internalError("reading an object", err)
		}
		switch obj.Type() {
		case plumbing.CommitObject:
			return h, nil
		case plumbing.TagObject:
			tag, err := object.DecodeTag(w.repo.storage, obj)
			if err != nil {
				return plumbing.ZeroHash, w.internalError("reading a tag", err)
			}
			h = tag.Target
		default:
			return plumbing.ZeroHash, errclass.Errorf(errclass.InvalidInput,
				"revision %s names a %s, not a commit", quoteInput(input), obj.Type())
		}
	}
	return plumbing.ZeroHash, errclass.Errorf(errclass.InvalidInput,
		"revision %s is a chain of more than %d tags", quoteInput(input), maxTagDepth)
}

func (w *Workspace) stepLocked(h plumbing.Hash, st revStep, input string) (plumbing.Hash, error) {
	if st.parent && st.n == 0 {
		return h, nil
	}
	count, index := st.n, 0
	if st.parent {
		count, index = 1, st.n-1
	}
	boundary := w.boundaryLocked() // read once: a step may cross it
	for range count {
		ci, err := w.repo.commitLocked(h)
		if err != nil {
			return plumbing.ZeroHash, w.internalError("reading a commit", err)
		}
		if index >= len(ci.parents) {
			return plumbing.ZeroHash, errclass.Errorf(errclass.NotFound,
				"revision %s goes past the commits that exist", quoteInput(input))
		}
		if slices.Contains(boundary, h) {
			return plumbing.ZeroHash, w.beyondBoundary(input, h)
		}
		h = ci.parents[index]
	}
	return h, nil
}

func (w *Workspace) refError(input string, err error) error {
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return errclass.Errorf(errclass.NotFound, "revision %s does not exist in workspace %q (no commits yet?)",
			quoteInput(input), w.id)
	}
	return w.internalError("reading refs", err)
}
