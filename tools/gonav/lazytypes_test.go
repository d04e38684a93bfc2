package gonav

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestTypesDecodedWhenAsked: a service whose cache an earlier one
// filled reads the packages' entries without decoding their export data,
// and decodes a package's types when a query first needs them: the
// packages a query reads through their indexes alone stay undecoded,
// an object an index names from another package decodes that package
// alone, and the answers are those of the service that checked
// everything, with no package checked again and nothing warned of.
func TestTypesDecodedWhenAsked(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	opts := testOptions(t)
	c1, sv1 := serve(t, repo.Dir, opts)
	navigate(t, c1, map[string]any{"relation": "definition", "symbol": "shape.Shape"})
	sv1.loader.store.wait()

	var warnings bytes.Buffer
	opts.Logger = slog.New(slog.NewTextHandler(&warnings, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c2, sv2 := serve(t, repo.Dir, opts)
	holdBackground(sv2)
	const (
		square   = "example.com/nav/square [example.com/nav/square.test]" // the unit with square's index
		shape    = "example.com/nav/shape"
		extTests = "example.com/nav/square_test [example.com/nav/square.test]"
	)
	steps := []struct {
		query map[string]any
		// decoded and undecoded are units whose types the query has
		// decoded, or not, once answered.
		decoded, undecoded []string
	}{
		// Reads the indexes of square and its external tests, which
		// name shape.Total: their types are not needed.
		{map[string]any{"relation": "references", "symbol": "shape.Total"}, []string{shape}, []string{square, extTests}},
		// An identifier of square's index naming shape.Total: found in
		// shape, square still undecoded.
		{map[string]any{"relation": "definition", "path": "square/square.go", "line": 19, "column": 15}, []string{shape}, []string{square}},
		// square's uses of Square.Area relate to Shape.Area: square's
		// own objects, from its types.
		{map[string]any{"relation": "references", "symbol": "shape.Shape.Area"}, []string{square}, nil},
		// A symbol without a package part is looked up in every
		// repository package, by the names their entries list: Total
		// has two candidates.
		{map[string]any{"relation": "definition", "symbol": "Total"}, nil, nil},
		{map[string]any{"relation": "definition", "symbol": "Describe"}, nil, nil},
	}
	for _, step := range steps {
		a, b := navigate(t, c1, step.query), navigate(t, c2, step.query)
		a.Precision.Load, b.Precision.Load = LoadFacts{}, LoadFacts{}
		if len(b.Results)+len(b.Candidates) == 0 || !reflect.DeepEqual(a, b) {
			t.Errorf("%v: the second service answered\n%+v\nthe first\n%+v", step.query, b, a)
		}
		prog := sv2.progs[0].prog
		for _, id := range step.decoded {
			if u := prog.unitByID(id); u == nil || !u.typesDecoded() {
				t.Errorf("%v: %s's types are not decoded", step.query, id)
			}
		}
		for _, id := range step.undecoded {
			u := prog.unitByID(id)
			if u == nil {
				t.Fatalf("%v: no unit %s", step.query, id)
			}
			if _, read := u.indexReady(); !read || u.typesDecoded() {
				t.Errorf("%v: %s: index read %t, types decoded %t; want read, not decoded", step.query, id, read, u.typesDecoded())
			}
		}
		if prog.checked != 0 || rechecked(prog) != 0 {
			t.Errorf("%v: the second service checked %d packages to load and %d to answer, want none", step.query, prog.checked, rechecked(prog))
		}
	}
	if warnings.Len() > 0 {
		t.Errorf("warnings:\n%s", warnings.String())
	}
}

// TestTypesDecodeDamaged: a unit read from disk reads its entry again
// when its types are first asked for, after its dependencies'; an entry
// gone, damaged or another package's by then is warned of and removed,
// one the file system fails to read is warned of and kept, and the
// package is checked for its declarations, which answer as the entry's
// types would.
func TestTypesDecodeDamaged(t *testing.T) {
	root := writeStoreFixture(t)
	tests := []struct {
		name    string
		change  func(t *testing.T, s *storeLoad, path string)
		warning string // what the log says, "" for nothing
		removed bool
	}{
		{"kept", func(t *testing.T, s *storeLoad, path string) {}, "", false},
		{"removed", func(t *testing.T, s *storeLoad, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, "damaged", true},
		{"export data cut", func(t *testing.T, s *storeLoad, path string) {
			e := rawEntry(t, s.entryOf(t, "example.com/m/q"))
			e.Export = e.Export[:len(e.Export)/2]
			writeFile(t, path, encodeEntry(t, e))
		}, "damaged", true},
		{"another package's", func(t *testing.T, s *storeLoad, path string) {
			writeFile(t, path, s.entryOf(t, "example.com/m/p"))
		}, "damaged", true},
		{"unreadable", func(t *testing.T, s *storeLoad, path string) {
			// A directory opens, and its read fails as a failing disk's
			// would (EISDIR): not the entry's fault.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "cannot be read", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			loadStoreFixture(t, root, dir)
			s := loadUnindexed(t, root, dir)
			p, q := s.nodes["example.com/m/p"].unit, s.nodes["example.com/m/q"].unit
			if s.checked != 0 || p.typesDecoded() || q.typesDecoded() {
				t.Fatalf("the load checked %d packages, decoded p %t, q %t; want none", s.checked, p.typesDecoded(), q.typesDecoded())
			}
			path := s.l.store.path(q.key)
			tc.change(t, s, path)
			if p.types().Scope().Lookup("Total") == nil {
				t.Error("p's types have no Total")
			}
			if !q.typesDecoded() {
				t.Error("p's types were decoded before q's, which it imports")
			}
			if q.types().Scope().Lookup("Sum") == nil || !slices.Contains(p.types().Imports(), q.api()) {
				t.Errorf("q's types have no Sum, or p's imports %v are not q's API %v", p.types().Imports(), q.api())
			}
			if tc.warning == "" && strings.Contains(s.log.String(), "WARN") || tc.warning != "" && !strings.Contains(s.log.String(), tc.warning) {
				t.Errorf("want a warning %q; log:\n%s", tc.warning, s.log)
			}
			if _, err := os.Stat(path); tc.removed != errors.Is(err, fs.ErrNotExist) {
				t.Errorf("removed %t, want %t: the entry's stat says %v", !tc.removed, tc.removed, err)
			}
		})
	}
}
