package audit

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// Record is the audit of one tool call.
type Record struct {
	Run    string `json:"run"`
	Call   string `json:"call"`
	Source string `json:"source"` // server ("mcp.<name>") or "local"; empty when no source offers the tool
	Tool   string `json:"tool"`   // as the source names it; for a call outside the allowlist, the name the model used
	// By is "harness" for a call the harness made itself (Call is then
	// "<call>/<purpose>", e.g. "c2/preview"); empty for the model's calls.
	By string `json:"by,omitempty"`
	// RequestID is the request_id the harness sent (of the last attempt),
	// ServerRequestID the one the server's result named: the keys that
	// join this record to the server's audit line.
	RequestID       string    `json:"request_id,omitempty"`
	ServerRequestID string    `json:"server_request_id,omitempty"`
	Alias           string    `json:"alias"` // the name the model used
	Effect          string    `json:"effect,omitempty"`
	Digest          string    `json:"digest"`  // argument digest
	Summary         string    `json:"summary"` // short rendering of the arguments
	Proposed        time.Time `json:"proposed"`
	// Start is when the call was first sent (its executing event); zero if
	// it never was.
	Start       time.Time     `json:"start,omitzero"`
	Duration    time.Duration `json:"-"`           // of the last attempt
	DurationMS  float64       `json:"duration_ms"` // Duration in milliseconds
	Attempts    int           `json:"attempts,omitempty"`
	ResultBytes int64         `json:"result_bytes"`
	Artifact    string        `json:"artifact,omitempty"`
	Outcome     string        `json:"outcome,omitempty"`
	State       string        `json:"state"` // terminal state, or the current one
	Reason      string        `json:"reason,omitempty"`
	Approval    *Approval     `json:"approval,omitempty"`
	Reconciled  []Decision    `json:"reconciled,omitempty"`
}

// Approval is a person's decision on a call.
type Approval struct {
	Decision   string    `json:"decision"`
	By         string    `json:"by"`
	At         time.Time `json:"at"`
	Digest     string    `json:"digest"`
	Definition string    `json:"definition"`
}

// Decision is a reconciliation of an unknown call.
type Decision struct {
	Decision  string    `json:"decision"`
	By        string    `json:"by"`
	At        time.Time `json:"at"`
	Automatic bool      `json:"automatic,omitempty"`
	Note      string    `json:"note,omitempty"`
}

// FromEvents builds the records of one run's events.
func FromEvents(events []eventlog.Event) ([]Record, error) {
	var (
		out   []*Record
		byID  = map[string]*Record{}
		start = map[string]time.Time{}
	)
	for _, ev := range events {
		rec := byID[ev.Call]
		switch ev.Type {
		case eventlog.CallState:
			var d eventlog.CallData
			if err := ev.Decode(&d); err != nil {
				return nil, err
			}
			if d.State == eventlog.Proposed {
				rec = &Record{Run: ev.Run, Call: ev.Call, Source: d.Source, Tool: d.Tool, Alias: d.Alias, Effect: d.Effect,
					Digest: d.Digest, Summary: d.Summary, Proposed: ev.Time, State: d.State}
				byID[ev.Call] = rec
				out = append(out, rec)
				continue
			}
			if rec == nil {
				return nil, fmt.Errorf("event %d: call %s was never proposed", ev.Seq, ev.Call)
			}
			rec.State, rec.Reason = d.State, d.Reason
			if d.ServerRequestID != "" {
				rec.ServerRequestID = d.ServerRequestID
			}
			if d.State == eventlog.Executing {
				rec.Attempts, rec.RequestID = d.Attempt, d.RequestID
				start[ev.Call] = ev.Time
				if rec.Start.IsZero() {
					rec.Start = ev.Time
				}
			}
			if d.Outcome != "" {
				rec.Outcome = d.Outcome
				rec.Duration = time.Duration(d.DurationMS * float64(time.Millisecond))
				if rec.Duration == 0 && !start[ev.Call].IsZero() {
					rec.Duration = ev.Time.Sub(start[ev.Call])
				}
			}
			if d.Artifact != "" {
				rec.Artifact, rec.ResultBytes = d.Artifact, d.ResultBytes
			}
		case eventlog.HarnessCall:
			var d eventlog.HarnessCallData
			if err := ev.Decode(&d); err != nil {
				return nil, err
			}
			out = append(out, &Record{Run: ev.Run, Call: ev.Call + "/" + d.Purpose, Source: d.Source, Tool: d.Tool, By: "harness",
				Effect: "read_only", Digest: d.Digest, Summary: d.Summary, Proposed: ev.Time, Start: ev.Time, Attempts: 1,
				Duration: time.Duration(d.DurationMS * float64(time.Millisecond)), ResultBytes: d.ResultBytes,
				Outcome: d.Outcome, State: d.State, Reason: d.Reason, RequestID: d.RequestID, ServerRequestID: d.ServerRequestID})
		case eventlog.Approval:
			var d eventlog.ApprovalData
			if err := ev.Decode(&d); err != nil {
				return nil, err
			}
			if rec != nil {
				rec.Approval = &Approval{Decision: d.Decision, By: d.By, At: ev.Time, Digest: d.Digest, Definition: d.Definition}
			}
		case eventlog.Reconcile:
			var d eventlog.ReconcileData
			if err := ev.Decode(&d); err != nil {
				return nil, err
			}
			if rec != nil {
				rec.Reconciled = append(rec.Reconciled, Decision{Decision: d.Decision, By: d.By, At: ev.Time, Automatic: d.Automatic, Note: d.Note})
			}
		}
	}
	recs := make([]Record, len(out))
	for i, r := range out {
		r.DurationMS = float64(r.Duration.Microseconds()) / 1000
		recs[i] = *r
	}
	return recs, nil
}

// Run returns the records of one run.
func Run(runsDir, id string) ([]Record, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("audit: bad run id %q", id)
	}
	events, err := eventlog.Read(filepath.Join(runsDir, id, "events.jsonl"))
	if err != nil {
		return nil, err
	}
	return FromEvents(events)
}

// Filter selects records; empty fields match everything.
type Filter struct {
	Run, Source, Tool, State string
	Since                    time.Time
}

func (f Filter) match(r Record) bool {
	return (f.Run == "" || r.Run == f.Run) && (f.Source == "" || r.Source == f.Source) &&
		(f.Tool == "" || r.Tool == f.Tool) && (f.State == "" || r.State == f.State) &&
		(f.Since.IsZero() || !r.Proposed.Before(f.Since))
}

// Query returns the matching records of every run under runsDir, oldest
// run first.
func Query(runsDir string, f Filter) ([]Record, error) {
	entries, err := os.ReadDir(runsDir)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	var out []Record
	var errs []error
	for _, de := range entries {
		if !de.IsDir() || (f.Run != "" && de.Name() != f.Run) {
			continue
		}
		recs, err := Run(runsDir, de.Name())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, r := range recs {
			if f.match(r) {
				out = append(out, r)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Record) int { return a.Proposed.Compare(b.Proposed) })
	return out, errors.Join(errs...)
}

// Format writes records as an aligned table.
func Format(w io.Writer, recs []Record) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tCALL\tSERVER\tTOOL\tEFFECT\tARGS DIGEST\tARGS\tSTART\tDURATION\tRESULT BYTES\tSTATE\tAPPROVAL")
	for _, r := range recs {
		start, dur := "-", "-"
		if !r.Start.IsZero() {
			start = r.Start.Format("2006-01-02T15:04:05.000Z")
			dur = r.Duration.Round(time.Microsecond).String()
		}
		approval := "-"
		if a := r.Approval; a != nil {
			approval = fmt.Sprintf("%s by %s at %s for %s", a.Decision, a.By, a.At.Format("15:04:05"), short(a.Digest))
		}
		state := r.State
		for _, d := range r.Reconciled {
			who := d.By
			if d.Automatic {
				who += " (automatic)"
			}
			state += fmt.Sprintf(" [%s by %s]", d.Decision, who)
		}
		cells := []string{r.Run, r.Call, dash(r.Source), r.Tool + aliasNote(r), dash(r.Effect), short(r.Digest), r.Summary, start, dur, fmt.Sprint(r.ResultBytes), state, approval}
		for i := range cells {
			// One line per call, and nothing a terminal would obey: the
			// arguments and names come from a model and servers.
			cells[i] = visible.Line(cells[i])
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func aliasNote(r Record) string {
	if r.Tool == "" {
		return "(" + r.Alias + ")"
	}
	return ""
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func short(digest string) string {
	if len(digest) > 19 {
		return digest[:19]
	}
	return digest
}
