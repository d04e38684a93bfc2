package patch

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
)

// TestAnswerOnce claims answers to apply_patch's questions: each is taken
// once, whatever the second answer says, and of concurrent answers to one
// question exactly one is taken; a ledger whose answers have all expired
// is pruned.
func TestAnswerOnce(t *testing.T) {
	_, ws, id := proposed(t, time.Now())
	now := time.Now()
	must(t, claimAnswer(ws, id, "q1", "decline", now))
	err := claimAnswer(ws, id, "q1", "accept", now)
	if answered, ok := errors.AsType[*errAnswered](err); !ok || answered.action != "decline" {
		t.Errorf("accept after decline: %v", err)
	}
	must(t, claimAnswer(ws, id, "q2", "accept", now))

	var wg sync.WaitGroup
	taken := make(chan error, 8)
	for range 8 {
		wg.Go(func() { taken <- claimAnswer(ws, id, "q3", "accept", now) })
	}
	wg.Wait()
	close(taken)
	won := 0
	for err := range taken {
		_, answered := errors.AsType[*errAnswered](err)
		switch {
		case err == nil:
			won++
		case !answered && server.ClassOf(err) != server.Transient:
			t.Errorf("a concurrent answer: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d of 8 concurrent answers to one question were taken, want 1", won)
	}

	// Before the questions expire the ledger stays; after, it goes, and
	// a later answer starts a new one.
	if n, err := pruneAnswers(ws, now, false); err != nil || n != 0 {
		t.Errorf("pruning live answers: %d, %v", n, err)
	}
	later := now.Add(server.QuestionLifetime + time.Minute)
	if n, err := pruneAnswers(ws, later, false); err != nil || n != 1 {
		t.Errorf("pruning expired answers: %d, %v", n, err)
	}
	if sha, _ := ws.Records().Read(answersRefPrefix + id); sha != "" {
		t.Errorf("the expired ledger is still at %s", sha)
	}
	must(t, claimAnswer(ws, id, "q4", "accept", later))
	if _, l, err := readLedger(ws, answersRefPrefix+id); err != nil || len(l.Answers) != 1 {
		t.Errorf("the ledger after a new answer: %+v, %v", l, err)
	}
}
