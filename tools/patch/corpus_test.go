package patch_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/tools/txtar"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

var update = flag.Bool("update", false, "rewrite the expected sections of testdata/lenient/*.txtar")

// TestLenientCorpus proposes each model-style patch of testdata/lenient
// (wrong counts, shifted hunks, missing prefixes, fences, CRLF, missing
// "\ No newline" markers, trailing spaces, envelopes, and what must be
// refused) through the built server and the go-sdk client, against the
// commit of base.txtar. Each case file holds its input and what it must
// give: the exact canonical diff and the corrections reported, or the
// error text. -update rewrites them (review the change).
//
// A case's comment may say "field: patch" (the input goes in patch, not
// diff) and "input: crlf" (its lines are sent with CRLF ends).
func TestLenientCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir, head := corpusRepo(t)
	b := startBinary(t, dir)
	names, err := filepath.Glob("testdata/lenient/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return filepath.Base(n) == "base.txtar" })
	if len(names) < 60 {
		t.Fatalf("the corpus has %d cases, fewer than 60", len(names))
	}
	for _, name := range names {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			field, input := "diff", section(ar, "input")
			for l := range strings.Lines(string(ar.Comment)) {
				switch strings.TrimSpace(l) {
				case "field: patch":
					field = "patch"
				case "input: crlf":
					input = strings.ReplaceAll(input, "\n", "\r\n")
				}
			}
			res := b.call(t, "generate_patch", map[string]any{"revision": head, field: input}, nil)
			got := corpusResult(t, b, res)
			want := &txtar.Archive{Comment: ar.Comment, Files: []txtar.File{{Name: "input", Data: []byte(section(ar, "input"))}}}
			want.Files = append(want.Files, got...)
			if *update {
				if err := os.WriteFile(name, txtar.Format(want), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, g := range got {
				if w := section(ar, g.Name); w != string(g.Data) {
					t.Errorf("%s:\ngot:\n%s\nwant:\n%s", g.Name, g.Data, w)
				}
			}
			if len(ar.Files) != len(want.Files) {
				t.Errorf("the case has sections %v; the result gives %v", sectionNames(ar), sectionNames(want))
			}
		})
	}
}

// corpusResult renders a generate_patch result as the sections a case
// expects: "error", or "diff" and "corrections". A success is also
// previewed, to check that the diff shown is the one the digest covers.
func corpusResult(t *testing.T, b *binServer, res *mcp.CallToolResult) []txtar.File {
	t.Helper()
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return []txtar.File{{Name: "error", Data: []byte(text + "\n")}}
	}
	var g struct {
		generated
		Corrections []struct {
			Path   string `json:"path"`
			Hunk   int    `json:"hunk"`
			Kind   string `json:"kind"`
			Detail string `json:"detail"`
		} `json:"corrections"`
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	var p generated
	b.call(t, "preview_diff", map[string]any{"patch_id": g.PatchID}, &p)
	sum := sha256.Sum256([]byte(p.Diff))
	if p.Diff != g.Diff || hex.EncodeToString(sum[:]) != p.Approval.DiffSHA256 || p.Approval.DiffSHA256 != g.DiffSHA256 {
		t.Errorf("preview_diff shows another diff than generate_patch, or its digest is not the diff's")
	}
	var c bytes.Buffer
	for _, k := range g.Corrections {
		fmt.Fprintf(&c, "%s %s %d: %s\n", k.Kind, k.Path, k.Hunk, k.Detail)
		if !strings.Contains(text, k.Detail) {
			t.Errorf("the text result does not show the correction %q", k.Detail)
		}
	}
	return []txtar.File{{Name: "diff", Data: []byte(g.Diff)}, {Name: "corrections", Data: c.Bytes()}}
}

// corpusRepo commits base.txtar's files, applying its directives.
func corpusRepo(t *testing.T) (string, string) {
	ar, err := txtar.ParseFile("testdata/lenient/base.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]gitfixture.File{}
	for _, f := range ar.Files {
		files[f.Name] = gitfixture.Text(string(f.Data))
	}
	for l := range strings.Lines(string(ar.Comment)) {
		key, val, _ := strings.Cut(strings.TrimSuffix(l, "\n"), ": ") // indented lines explain
		switch key {
		case "crlf":
			files[val] = gitfixture.Text(strings.ReplaceAll(string(ar.Files[index(t, ar, val)].Data), "\n", "\r\n"))
		case "nonl":
			files[val] = gitfixture.Text(strings.TrimSuffix(string(ar.Files[index(t, ar, val)].Data), "\n"))
		case "symlink":
			p, target, _ := strings.Cut(val, "=")
			files[p] = gitfixture.Link(target)
		}
	}
	dir := filepath.Join(t.TempDir(), "repo")
	os.Mkdir(dir, 0o755)
	head := gitfixture.Init(t, dir, false).Commit(t, "corpus base", files)
	gitfixture.Git(t, dir, "reset", "-q", "--hard", "main")
	return dir, head
}

func index(t *testing.T, ar *txtar.Archive, name string) int {
	for i, f := range ar.Files {
		if f.Name == name {
			return i
		}
	}
	t.Fatalf("base.txtar has no file %s", name)
	return -1
}

func section(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

func sectionNames(ar *txtar.Archive) []string {
	var out []string
	for _, f := range ar.Files {
		out = append(out, f.Name)
	}
	return out
}
