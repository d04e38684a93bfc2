package gonav

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/peers"
	"github.com/repo-mcp/repo-mcp/server/servertest"
)

// goplsQuery is one question asked of go_navigate and of gopls.
type goplsQuery struct{ relation, symbol string }

// goplsQueries are the 30 questions asked of go_navigate and of gopls on
// go-git at HEAD: references and definitions of functions, types,
// fields, variables and constants; implementations both ways and of a
// method; callers.
var goplsQueries = []goplsQuery{
	{References, "git.PlainOpen"},
	{References, "plumbing.NewHash"},
	{References, "object.Commit.Hash"},
	{References, "storer.EncodedObjectStorer"},
	{References, "plumbing.ReferenceName.Short"},
	{References, "config.RemoteConfig"},
	{References, "git.Repository.CommitObject"},
	{References, "plumbing.ZeroHash"},
	{References, "filemode.Regular"},
	{References, "object.GetCommit"},
	{Implementations, "storer.EncodedObjectStorer"},
	{Implementations, "github.com/go-git/go-git/v6/plumbing/object.Object"},
	{Implementations, "plumbing.EncodedObject"},
	{Implementations, "storer.ReferenceStorer"},
	{Implementations, "object.CommitIter"},
	{Implementations, "plumbing.MemoryObject"},
	{Implementations, "object.Commit"},
	{Implementations, "storer.EncodedObjectIter.Next"},
	{Callers, "plumbing.NewHash"},
	{Callers, "git.PlainOpen"},
	{Callers, "object.GetCommit"},
	{Callers, "git.Repository.Head"},
	{Callers, "plumbing.NewReferenceFromStrings"},
	{Callers, "object.DecodeObject"},
	{Definition, "git.PlainOpen"},
	{Definition, "plumbing.NewHash"},
	{Definition, "object.Commit"},
	{Definition, "storer.EncodedObjectStorer"},
	{Definition, "plumbing.ZeroHash"},
	{Definition, "filemode.Regular"},
}

// TestAgainstGopls asks the 30 questions of go_navigate and of gopls (one
// gopls process, over LSP: its CLI would load go-git again for each) on
// go-git at HEAD, and compares the location sets, of a service that
// checks go-git and of one that reads it from the first's cache. Differences that follow
// from a documented difference of method are logged; any other fails.
// go-git's dependencies must be in the module cache (.ci/install-peers
// downloads them).
func TestAgainstGopls(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: loads go-git twice, once in gopls")
	}
	gopls := peers.Gopls(t)
	bundle, err := filepath.Abs("../../../shared/corpora/go-git.bundle")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bundle); err != nil {
		t.Skipf("the go-git corpus is not here (%v); CI has it", err)
	}
	dir := filepath.Join(t.TempDir(), "go-git")
	gitfixture.Git(t, ".", "clone", "-q", bundle, dir)
	// A second service on the same cache directory answers from the
	// packages and indexes the first kept on disk.
	opts := testOptions(t)
	lsp := startGopls(t, gopls, dir, dir)
	for _, name := range []string{"checked", "from disk"} {
		t.Run(name, func(t *testing.T) {
			c, sv := serve(t, dir, opts)
			compareWithGopls(t, c, lsp, goRoots(t, dir), goplsQueries)
			sv.loader.store.wait()
			if checked := sv.progs[0].prog.checked; name == "from disk" && checked != 0 {
				t.Errorf("the second service checked %d packages", checked)
			}
		})
	}
}

// compareWithGopls asks each question of go_navigate (through c) and of
// gopls, and compares the location sets, gopls's files named by r.
// Differences that follow from a documented difference of method are
// logged; any other fails.
func compareWithGopls(t *testing.T, c *servertest.Client, lsp *lspClient, r roots, queries []goplsQuery) {
	t.Helper()
	var same, explained int
	for _, q := range queries {
		name := q.relation + " " + q.symbol
		ours, theirs, why := compareOne(t, c, lsp, r, q.relation, q.symbol)
		if ours == nil && theirs == nil {
			continue
		}
		onlyOurs, onlyTheirs := difference(ours, theirs), difference(theirs, ours)
		switch {
		case len(onlyOurs) == 0 && len(onlyTheirs) == 0:
			same++
			t.Logf("%s: identical, %d locations", name, len(ours))
		case why != nil && why(onlyOurs, onlyTheirs):
			explained++
			t.Logf("%s: %d locations; differences explained by method: ours only %v; gopls only %v", name, len(ours), onlyOurs, onlyTheirs)
		default:
			t.Errorf("%s: ours only %v; gopls only %v", name, onlyOurs, onlyTheirs)
		}
	}
	t.Logf("%d of %d queries identical, %d with explained differences", same, len(queries), explained)
}

// compareOne asks one question of both, and returns the two location sets
// and what explains a difference between them, if anything does.
func compareOne(t *testing.T, c *servertest.Client, lsp *lspClient, r roots, relation, symbol string) (ours, theirs []string, why func(onlyOurs, onlyTheirs []string) bool) {
	out := navigateAll(t, c, map[string]any{"relation": References, "symbol": symbol, "limit": 1000})
	if out.Target == nil {
		t.Errorf("%s: no target (%d candidates)", symbol, len(out.Candidates))
		return nil, nil, nil
	}
	tg := out.Target
	switch relation {
	case References:
		for _, l := range out.Results {
			if l.Kind == "declaration" || l.Kind == "reference" || l.Kind == "related_reference" {
				ours = append(ours, locString(l))
			}
		}
		theirs = lsp.locations("textDocument/references", tg.File, tg.Line, tg.Column,
			map[string]any{"context": map[string]any{"includeDeclaration": true}}, r)
	case Implementations:
		out := navigateAll(t, c, map[string]any{"relation": Implementations, "symbol": symbol, "limit": 1000})
		for _, l := range out.Results {
			ours = append(ours, locString(l))
		}
		theirs = lsp.locations("textDocument/implementation", tg.File, tg.Line, tg.Column, nil, r)
		// gopls lists a method among its own implementations when an
		// interface of another package embeds the method's interface:
		// it reports the embedded method at its declaration.
		self := locString(*tg)
		why = func(onlyOurs, onlyTheirs []string) bool {
			return len(onlyOurs) == 0 && !slices.ContainsFunc(onlyTheirs, func(l string) bool { return l != self })
		}
	case Callers:
		refs := out.Results
		out := navigateAll(t, c, map[string]any{"relation": Callers, "symbol": symbol, "limit": 1000})
		var dynamic []string
		for _, l := range out.Results {
			if l.Kind == "call" {
				ours = append(ours, locString(l))
			} else {
				dynamic = append(dynamic, locString(l))
			}
		}
		theirs = lsp.callers(tg.File, tg.Line, tg.Column, r)
		// Uses of the function that are not calls (a function value
		// taken) are references to us: gopls's incoming calls list every
		// reference.
		var values []string
		for _, l := range refs {
			if l.Kind == "reference" && !slices.Contains(ours, locString(l)) {
				values = append(values, locString(l))
			}
		}
		// CHA's calls through an interface are ours alone: gopls's call
		// hierarchy follows static calls only. So are calls in vendored
		// packages: gopls's workspace leaves vendor directories out.
		ours = append(ours, dynamic...)
		why = func(onlyOurs, onlyTheirs []string) bool {
			return !slices.ContainsFunc(onlyTheirs, func(l string) bool { return !slices.Contains(values, l) }) &&
				!slices.ContainsFunc(onlyOurs, func(l string) bool { return !slices.Contains(dynamic, l) && !vendored(l) })
		}
	case Definition:
		// Ask from the first use in the repository.
		var use *Location
		for i, l := range out.Results {
			if l.Kind == "reference" && inRepo(l.File) {
				use = &out.Results[i]
				break
			}
		}
		if use == nil {
			t.Errorf("%s: no use to ask the definition from", symbol)
			return nil, nil, nil
		}
		def := navigate(t, c, map[string]any{"relation": Definition, "path": use.File, "line": use.Line, "column": use.Column})
		for _, l := range def.Results {
			ours = append(ours, locString(l))
		}
		theirs = lsp.locations("textDocument/definition", use.File, use.Line, use.Column, nil, r)
	}
	return ours, theirs, why
}

// vendored reports whether a file is in a vendor directory.
func vendored(file string) bool {
	return strings.HasPrefix(file, "vendor/") || strings.Contains(file, "/vendor/")
}

// difference returns what a holds and b does not, sorted.
func difference(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) && !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	slices.Sort(out)
	return out
}

// goRoots are the roots go_navigate names files by, for gopls's answers.
func goRoots(t *testing.T, dir string) roots {
	out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		t.Fatalf("go env: %q", out)
	}
	return roots{export: dir, goRoot: lines[0], modCache: lines[1]}
}
