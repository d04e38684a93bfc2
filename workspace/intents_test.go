package workspace

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestSettleIntent leaves an intent on a branch as a writer that died
// would, puts the branch where the writer may have left it, and settles.
func TestSettleIntent(t *testing.T) {
	const branch = "refs/heads/topic"
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		head       int           // the branch's head at settling: 0 (From), 1 (Commit), -1 elsewhere
		after      time.Duration // time from the intent to settling
		recordedBy bool          // the writer pointed the record before it died
		wantRecord bool
		wantIntent bool // the intent is left: its writer may still move the branch
	}{
		{name: "moved", head: 1, after: time.Second, wantRecord: true},
		{name: "moved and recorded", head: 1, after: time.Second, recordedBy: true, wantRecord: true},
		{name: "not moved, writer may live", head: 0, after: time.Second, wantIntent: true},
		{name: "not moved, stale", head: 0, after: 2 * IntentStale},
		{name: "moved elsewhere", head: -1, after: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, commits := basicRepo(t)
			other := repo.Commit(t, "third", map[string]gitfixture.File{"b.txt": gitfixture.Text("b\n")})
			heads := map[int]string{0: commits[0], 1: commits[1], -1: other}
			gitfixture.Git(t, repo.Dir, "update-ref", branch, heads[tc.head])
			rec := snapshot(t, openOne(t, repo.Dir, nil), "HEAD").Workspace().Records()
			blob := writeBlob(t, rec.w, `{"outcome":"applied"}`)
			in := Intent{Branch: branch, From: commits[0], Commit: commits[1], Record: "applied/x/branch-1", RecordBlob: blob}
			sha, err := rec.Intend(in, start)
			if err != nil {
				t.Fatal(err)
			}
			if tc.recordedBy {
				if err := rec.Update(in.Record, blob, ""); err != nil {
					t.Fatal(err)
				}
			}
			settled, err := rec.SettleIntents(start.Add(tc.after))
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := rec.Read(in.Record); (got == blob) != tc.wantRecord {
				t.Errorf("record = %q, want it at %s: %v", got, blob, tc.wantRecord)
			}
			if got, _ := rec.Read(intentName(branch)); (got == sha) != tc.wantIntent {
				t.Errorf("intent = %q, want it left: %v", got, tc.wantIntent)
			}
			if len(settled) != 1-boolInt(tc.wantIntent) || len(settled) == 1 && settled[0].Recorded != tc.wantRecord {
				t.Errorf("settled = %+v", settled)
			}
			again, err := rec.SettleIntents(start.Add(tc.after))
			if err != nil || len(again) > 0 && !tc.wantIntent {
				t.Errorf("settling again: %+v, %v", again, err)
			}
		})
	}
}

// TestIntendWhileAnotherIsLive: one intent per branch; a live one makes a
// second writer wait, a dead one is settled out of its way.
func TestIntendWhileAnotherIsLive(t *testing.T) {
	repo, commits := basicRepo(t)
	gitfixture.Git(t, repo.Dir, "update-ref", "refs/heads/topic", commits[0])
	rec := snapshot(t, openOne(t, repo.Dir, nil), "HEAD").Workspace().Records()
	blob := writeBlob(t, rec.w, `{}`)
	start := time.Now()
	in := Intent{Branch: "refs/heads/topic", From: commits[0], Commit: commits[1], Record: "applied/x/branch-1", RecordBlob: blob}
	if _, err := rec.Intend(in, start); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Intend(in, start.Add(time.Second)); !errors.Is(err, ErrIntentPending) {
		t.Errorf("a second intent while the first is live: %v", err)
	}
	if _, err := rec.Intend(in, start.Add(2*IntentStale)); err != nil {
		t.Errorf("a second intent once the first is stale: %v", err)
	}
	if err := CheckIntentYoung(start, start.Add(intentMoveWindow+time.Millisecond)); err == nil || !strings.Contains(err.Error(), "nothing was moved") {
		t.Errorf("an old intent may still move: %v", err)
	}
}

func writeBlob(t *testing.T, w *Workspace, s string) string {
	t.Helper()
	sha, err := w.WriteBlob([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestIntentAgesOnObserversClock: another replica judges an intent's age
// from when it first saw it, so a writer whose clock is behind or ahead
// keeps its intent for IntentStale, and loses it after; only a stamp
// older than any clock skew is dropped at first sight.
func TestIntentAgesOnObserversClock(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name      string
		stamp     time.Duration // the writer's clock against the observer's
		firstLook time.Duration // when the observer first settles
		wantLeft  bool          // the intent is left at the first look
	}{
		{name: "writer behind", stamp: -5 * time.Minute, wantLeft: true},
		{name: "writer ahead", stamp: 5 * time.Minute, wantLeft: true},
		{name: "writer in step", stamp: 0, wantLeft: true},
		{name: "stamp older than any skew", stamp: -(IntentStale + intentClockSkew + time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, commits := basicRepo(t)
			const branch = "refs/heads/topic"
			gitfixture.Git(t, repo.Dir, "update-ref", branch, commits[0])
			writer := snapshot(t, openOne(t, repo.Dir, nil), "HEAD").Workspace().Records()
			observer := snapshot(t, openOne(t, repo.Dir, nil), "HEAD").Workspace().Records()
			blob := writeBlob(t, writer.w, `{}`)
			in := Intent{Branch: branch, From: commits[0], Commit: commits[1], Record: "applied/x/branch-1", RecordBlob: blob}
			sha, err := writer.Intend(in, now.Add(tc.stamp))
			if err != nil {
				t.Fatal(err)
			}
			settled, err := observer.SettleIntents(now)
			if err != nil {
				t.Fatal(err)
			}
			if left := len(settled) == 0; left != tc.wantLeft {
				t.Fatalf("at first sight: settled %+v, want the intent left: %v", settled, tc.wantLeft)
			}
			if !tc.wantLeft {
				return
			}
			if s, err := observer.SettleIntents(now.Add(IntentStale - time.Second)); err != nil || len(s) != 0 {
				t.Errorf("before IntentStale on the observer's clock: settled %+v, %v", s, err)
			}
			if s, err := observer.SettleIntents(now.Add(IntentStale + time.Second)); err != nil || len(s) != 1 {
				t.Errorf("after IntentStale on the observer's clock: settled %+v, %v", s, err)
			}
			if got, _ := observer.Read(intentName(branch)); got == sha {
				t.Errorf("the stale intent is still there")
			}
		})
	}
}
