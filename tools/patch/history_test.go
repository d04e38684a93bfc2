package patch_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch"
)

// TestPatchHistory checks that every apply_patch call that reached the
// patch is recorded in the patch's history, whatever its outcome, among
// the proposals; that apply attempts are numbered apart from them; and that
// git reads the history.
func TestPatchHistory(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	change := edit("replace", "greet.go", "old_text", `"hello"`, "new_text", `"hi"`)
	g := generate(t, f, change)
	other := generate(t, f, edit("write", "docs/a.txt", "content", "x\n")) // proposed, never applied
	wrongDigest := strings.Repeat("0", 64)
	fails(t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": wrongDigest}, server.PermissionDenied)
	fails(t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256, "expect_base": strings.Repeat("1", 40)}, server.PreconditionFailed)
	generate(t, f, change) // proposed again: the head of the history is no attempt now
	a := ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256})
	ok[applied](t, f, "apply_patch", map[string]any{"patch_id": g.PatchID, "diff_sha256": g.DiffSHA256})
	fails(t, f, "apply_patch", map[string]any{"patch_id": strings.Repeat("2", 40), "diff_sha256": wrongDigest}, server.NotFound)

	want := "apply attempt 4: already_applied\napply attempt 3: applied\nproposed by local\n" +
		"apply attempt 2: precondition_failed\napply attempt 1: permission_denied\nproposed by local\n"
	if h := f.history(t, g.PatchID); h != want {
		t.Errorf("history of the patch:\n%s\nwant\n%s", h, want)
	}
	if h := f.history(t, other.PatchID); h != "proposed by local\n" {
		t.Errorf("history of the patch never applied:\n%s", h)
	}
	ref := "refs/repo-mcp/history/" + g.PatchID
	rec := record(t, f, ref+"~1")
	if rec["event"] != "apply" || rec["request_id"] != a.RequestID || rec["caller"] != "local" || rec["diff_sha256"] != g.DiffSHA256 ||
		rec["branch"] != a.Branch || rec["target"] != "branch" || rec["seq"] != 5.0 || rec["attempts"] != 3.0 {
		t.Errorf("record of the apply: %v; apply %+v", rec, a)
	}
	if rec := record(t, f, ref+"~2"); rec["event"] != "proposed" || rec["seq"] != 4.0 || rec["attempts"] != 2.0 || rec["base"] != f.head {
		t.Errorf("record of the second proposal: %v", rec)
	}
	if rec := record(t, f, ref+"~4"); !strings.HasPrefix(rec["error"].(string), "diff_sha256 does not match patch ") {
		t.Errorf("the refused attempt's record lacks the message the caller was given: %v", rec)
	}
	refs := gitfixture.Git(t, f.dir, "for-each-ref", "--format=%(refname)", "refs/repo-mcp/history/")
	if want := histories(g.PatchID, other.PatchID); refs != want {
		t.Errorf("history refs: %q, want %q (the unknown patch has none)", refs, want)
	}
	if tree := strings.TrimSpace(gitfixture.Git(t, f.dir, "rev-parse", ref+"^{tree}")); tree != "4b825dc642cb6eb9a060e54bf8d69288fbee4904" {
		t.Errorf("an event's tree is %s, not the empty tree", tree)
	}
	gitfixture.Git(t, f.dir, "fsck", "--no-dangling")
}

// TestProposalHistory checks that each proposal of a patch, the same
// change again included, is an event of its own, made at the time of the
// call: the patch's age is in its history, not in the proposal commit.
func TestProposalHistory(t *testing.T) {
	clock := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	f := newFixture(t, fixtureOptions{opts: patch.Options{Now: func() time.Time { return clock }}})
	change := edit("write", "docs/a.txt", "content", "x\n")
	first := generate(t, f, change)
	clock = clock.Add(49 * time.Hour)
	again := generate(t, f, change)
	if again.PatchID != first.PatchID {
		t.Fatalf("the same change got ids %s and %s", first.PatchID, again.PatchID)
	}
	ref := "refs/repo-mcp/history/" + first.PatchID
	log := gitfixture.Git(t, f.dir, "log", "--format=%cI %aI %s", ref)
	want := "2026-03-06T06:06:07+00:00 2026-03-06T06:06:07+00:00 proposed by local\n" +
		"2026-03-04T05:06:07+00:00 2026-03-04T05:06:07+00:00 proposed by local\n"
	if log != want {
		t.Errorf("history:\n%s\nwant\n%s", log, want)
	}
	if got, base := gitfixture.Git(t, f.dir, "log", "-1", "--format=%cI", first.PatchID), gitfixture.Git(t, f.dir, "log", "-1", "--format=%cI", f.head); got != base {
		t.Errorf("the proposal commit's time is %s, not its base's %s", got, base)
	}
	rec := record(t, f, ref)
	if rec["caller"] != "local" || rec["base"] != f.head || rec["time"] != "2026-03-06T06:06:07Z" || rec["seq"] != 2.0 ||
		rec["attempts"] != 0.0 || rec["request_id"] == "" || rec["request_id"] == record(t, f, ref+"~1")["request_id"] {
		t.Errorf("record of the second proposal: %v", rec)
	}
}

// TestProposalHistoryClock checks that, with the default clock, an event's
// time is the time of the call.
func TestProposalHistoryClock(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	before := time.Now().Truncate(time.Second) // git keeps whole seconds
	g := generate(t, f, edit("write", "docs/a.txt", "content", "x\n"))
	after := time.Now()
	got, err := time.Parse(time.RFC3339, strings.TrimSpace(gitfixture.Git(t, f.dir, "log", "-1", "--format=%cI", "refs/repo-mcp/history/"+g.PatchID)))
	if err != nil || got.Before(before) || got.After(after) {
		t.Errorf("the proposal's event is dated %v (%v), not between %v and %v", got, err, before, after)
	}
}

// TestRefusedProposalNoHistory checks that a generate_patch refused for
// its input writes nothing at all, history included.
func TestRefusedProposalNoHistory(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	before := gitfixture.Git(t, f.dir, "for-each-ref")
	for _, tt := range []struct {
		args  map[string]any
		class server.Class
	}{
		{map[string]any{}, server.InvalidInput},
		{map[string]any{"edits": []any{edit("replace", "greet.go", "old_text", "absent", "new_text", "x")}}, server.InvalidInput},
		{map[string]any{"edits": []any{edit("write", "docs/a.txt", "content", "x\n")}, "summary": "two\nlines"}, server.InvalidInput},
		{map[string]any{"diff": "not a diff"}, server.InvalidInput},
	} {
		fails(t, f, "generate_patch", tt.args, tt.class)
	}
	if after := gitfixture.Git(t, f.dir, "for-each-ref"); after != before {
		t.Errorf("refused proposals wrote refs:\n%s", after)
	}
}

// record decodes the event of history commit rev.
func record(t *testing.T, f *fixture, rev string) map[string]any {
	t.Helper()
	body := gitfixture.Git(t, f.dir, "log", "-1", "--format=%b", rev)
	var rec map[string]any
	if err := json.Unmarshal([]byte(body), &rec); err != nil {
		t.Fatalf("record of %s %q: %v", rev, body, err)
	}
	return rec
}

// histories is what for-each-ref lists of the histories of ids.
func histories(ids ...string) string {
	var b strings.Builder
	for _, id := range slices.Sorted(slices.Values(ids)) {
		b.WriteString("refs/repo-mcp/history/" + id + "\n")
	}
	return b.String()
}
