package gonav

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestOutsideStatsPerListing: a package outside the repository is keyed
// by its files' sizes and times, read once per listing, so a load that
// reuses the listing does not read them again, and a new listing does; a
// repository package's files are read by every load.
func TestOutsideStatsPerListing(t *testing.T) {
	root := t.TempDir()
	r := roots{export: filepath.Join(root, "export"), goRoot: filepath.Join(root, "goroot")}
	tests := []struct {
		name  string
		dir   string // under root
		local bool
		// same says a load reusing the listing keys the package as before
		// the edit; a new listing never does.
		same bool
	}{
		{"outside the repository", "goroot/src/p", false, true},
		{"in the repository", "export/p", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(root, tc.dir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "p.go")
			if err := os.WriteFile(file, []byte("package p\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			listing := func() *listedPackage {
				return &listedPackage{ImportPath: "p", Name: "p", Dir: dir, GoFiles: []string{"p.go"}, outside: new(outsideStats)}
			}
			lp := listing()
			key := func(lp *listedPackage) []byte {
				l := &loader{maxFileBytes: 1 << 20}
				n := &node{lp: lp, local: tc.local}
				l.prepare(n, r, newFileSums(r.export, nil))
				if len(n.problems) > 0 {
					t.Fatalf("problems: %q", n.problems)
				}
				return n.files
			}
			before := key(lp)
			if err := os.WriteFile(file, []byte("package p\n\nvar V int\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			reused := *lp // a listing reused for another load is a copy (see moved)
			if got := bytes.Equal(key(&reused), before); got != tc.same {
				t.Errorf("the load reusing the listing keys the package as before: %t, want %t", got, tc.same)
			}
			if bytes.Equal(key(listing()), before) {
				t.Error("a new listing keys the package as before its edit")
			}
		})
	}
}
