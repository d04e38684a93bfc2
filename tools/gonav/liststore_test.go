package gonav

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestListingOnDisk: a new service on a cache directory an earlier one
// filled does not run go list on the same revision, and answers the
// same; a listing on disk that is damaged, or another key's, is a miss:
// go list runs again, and the answer is still the same.
func TestListingOnDisk(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "nav", txtarFiles(t, "testdata/nav.txtar"))
	opts := testOptions(t)
	query := map[string]any{"relation": "references", "symbol": "shape.Shape.Area"}
	c1, sv1 := serve(t, repo.Dir, opts)
	want := navigate(t, c1, query)
	want.Precision.Load = LoadFacts{}
	if sv1.lists.runs != 1 {
		t.Fatalf("the first service ran go list %d times, want 1", sv1.lists.runs)
	}
	entries, err := filepath.Glob(filepath.Join(opts.CacheDir, listsDirName, "*", "*"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("listings on disk: %q (%v), want one", entries, err)
	}
	entry := entries[0]
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		damage func(t *testing.T)
		runs   int
	}{
		{"kept", func(t *testing.T) {}, 0},
		{"truncated", func(t *testing.T) { write(t, entry, data[:len(data)/2]) }, 1},
		{"another key's", func(t *testing.T) {
			key := filepath.Base(entry)
			write(t, entry, bytes.Replace(data, []byte(key), []byte(strings.Repeat("0", len(key))), 1))
		}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			write(t, entry, data)
			tc.damage(t)
			c, sv := serve(t, repo.Dir, opts)
			got := navigate(t, c, query)
			got.Precision.Load = LoadFacts{}
			if sv.lists.runs != tc.runs {
				t.Errorf("go list ran %d times, want %d", sv.lists.runs, tc.runs)
			}
			if len(got.Results) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("answered\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestListingOutsideChanged: a listing kept on disk holds while the
// directories and files of its packages outside the export are as they
// were, and the stats its reader took key those packages; any change
// there, a file edited, added or removed, makes it a miss. A listing in
// which a package has an error is not kept.
func TestListingOutsideChanged(t *testing.T) {
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		holds  bool
	}{
		{"nothing", func(t *testing.T, dir string) {}, true},
		{"a file's contents", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "p.go"), []byte("package p\n\nvar V int\n"))
		}, false},
		{"a file's time", func(t *testing.T, dir string) {
			if err := os.Chtimes(filepath.Join(dir, "p.go"), past, past.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a file added", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "q.go"), []byte("package p\n")) }, false},
		{"a file removed", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "p.go")); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			export, outside := filepath.Join(root, "export"), filepath.Join(root, "goroot", "p")
			for _, dir := range []string{export, outside} {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write(t, filepath.Join(outside, "p.go"), []byte("package p\n"))
			for _, p := range []string{filepath.Join(outside, "p.go"), outside} {
				if err := os.Chtimes(p, past, past); err != nil {
					t.Fatal(err)
				}
			}
			listing := []*listedPackage{
				{ImportPath: "m", Name: "m", Dir: export, GoFiles: []string{"m.go"}, Imports: []string{"p"}, outside: new(outsideStats)},
				{ImportPath: "p", Name: "p", Dir: outside, GoFiles: []string{"p.go"}, outside: new(outsideStats)},
			}
			s := listStore{dir: filepath.Join(root, "lists"), log: slog.New(slog.DiscardHandler)}
			const key = "0123456789abcdef"
			s.write(key, export, listing)
			tc.change(t, outside)
			moved := filepath.Join(root, "export2")
			got := s.read(key, moved)
			if (got != nil) != tc.holds {
				t.Fatalf("the listing holds: %t, want %t", got != nil, tc.holds)
			}
			if got == nil {
				return
			}
			if got[0].Dir != moved || got[1].Dir != outside {
				t.Errorf("directories %q and %q, want %q and %q", got[0].Dir, got[1].Dir, moved, outside)
			}
			if fi := got[1].outside.stat(got[1], 0); fi.err != nil || !fi.modTime.Equal(past) {
				t.Errorf("the outside package's file is keyed by %+v, want its time %v", fi, past)
			}
			got[1].Error = &struct{ Err string }{"no such module"}
			s.write("fedcba9876543210", export, got)
			if s.read("fedcba9876543210", moved) != nil {
				t.Error("a listing with a package's error was kept")
			}
		})
	}
}

// fakeToolchain is a lister of a GOROOT and module cache, for
// toolchainID; it lists nothing.
type fakeToolchain struct {
	lister
	root, modCache string
}

func (f fakeToolchain) GoRoot() string   { return f.root }
func (f fakeToolchain) ModCache() string { return f.modCache }

// TestToolchainID: a listing's key changes with the go command's
// version, its binary, GOROOT and the module cache.
func TestToolchainID(t *testing.T) {
	root := t.TempDir()
	goroot := filepath.Join(root, "go")
	if err := os.MkdirAll(filepath.Join(goroot, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(goroot, "VERSION"), []byte("go1.26.8\n"))
	write(t, filepath.Join(goroot, "bin", "go"), []byte("a go command"))
	base := fakeToolchain{root: goroot, modCache: filepath.Join(root, "mod")}
	tests := []struct {
		name   string
		change func(t *testing.T) lister
	}{
		{"another version", func(t *testing.T) lister {
			write(t, filepath.Join(goroot, "VERSION"), []byte("go1.26.9\n"))
			return base
		}},
		{"another binary", func(t *testing.T) lister {
			write(t, filepath.Join(goroot, "bin", "go"), []byte("another go command"))
			return base
		}},
		{"another GOROOT", func(t *testing.T) lister { return fakeToolchain{root: root, modCache: base.modCache} }},
		{"another module cache", func(t *testing.T) lister { return fakeToolchain{root: goroot, modCache: root} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := toolchainID(base)
			if again := toolchainID(base); again != before {
				t.Fatalf("the same toolchain is named %q, then %q", before, again)
			}
			if after := toolchainID(tc.change(t)); after == before {
				t.Errorf("named %q before and after the change", before)
			}
		})
	}
}
