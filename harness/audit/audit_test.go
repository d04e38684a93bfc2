package audit

import (
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
)

func TestFromEvents(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ev := func(ms int, typ eventlog.Type, call string, data any) eventlog.Event {
		return eventlog.Event{Time: at(ms), Run: "r1", Type: typ, Call: call, Data: eventlog.Marshal(data)}
	}
	events := []eventlog.Event{
		ev(0, eventlog.CallState, "c1", eventlog.CallData{State: eventlog.Proposed, Source: "mcp.fs", Tool: "write", Alias: "fs_write", Effect: "write", Digest: "sha256:abc", Summary: `{"path":"a"}`}),
		ev(1, eventlog.CallState, "c1", eventlog.CallData{State: eventlog.WaitingForApproval}),
		ev(5, eventlog.Approval, "c1", eventlog.ApprovalData{Decision: "approve", By: "alice", Digest: "sha256:abc", Definition: "sha256:def"}),
		ev(6, eventlog.CallState, "c1", eventlog.CallData{State: eventlog.Ready}),
		ev(7, eventlog.CallState, "c1", eventlog.CallData{State: eventlog.Executing, Attempt: 1}),
		ev(9, eventlog.CallState, "c1", eventlog.CallData{State: eventlog.Unknown, Outcome: "connection_lost"}),
		ev(20, eventlog.Reconcile, "c1", eventlog.ReconcileData{Decision: eventlog.Retry, By: "bob"}),
		ev(21, eventlog.CallState, "c1", eventlog.CallData{State: eventlog.Ready}),
		ev(22, eventlog.CallState, "c1", eventlog.CallData{State: eventlog.Executing, Attempt: 2}),
		ev(25, eventlog.CallState, "c1", eventlog.CallData{State: eventlog.Succeeded, Outcome: "answered", ResultBytes: 42, Artifact: "sha256:fff", DurationMS: 2.5}),
		ev(26, eventlog.CallState, "c2", eventlog.CallData{State: eventlog.Proposed, Alias: "rm_rf", Digest: "sha256:000", Summary: "{}"}),
		ev(27, eventlog.CallState, "c2", eventlog.CallData{State: eventlog.PermissionDenied, Reason: "not an allowlisted tool"}),
	}
	recs, err := FromEvents(events)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r.Start != at(7) || r.Attempts != 2 || r.Duration != 2500*time.Microsecond || r.ResultBytes != 42 || r.State != eventlog.Succeeded ||
		r.Approval == nil || r.Approval.By != "alice" || r.Approval.At != at(5) || len(r.Reconciled) != 1 || r.Reconciled[0].By != "bob" {
		t.Errorf("record %+v", r)
	}
	if recs[1].State != eventlog.PermissionDenied || !recs[1].Start.IsZero() {
		t.Errorf("refused call %+v", recs[1])
	}
	var b strings.Builder
	Format(&b, recs)
	for _, want := range []string{"mcp.fs", "succeeded [retry by bob]", "approve by alice at 01:00:00 for sha256:abc", "(rm_rf)", "permission_denied"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}
