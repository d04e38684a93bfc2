package eventlog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestAppendRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(path); err == nil {
		t.Error("Create over an existing log succeeded")
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := l.Append(Event{Run: "r", Type: CallState, Call: "c", Data: Marshal(CallData{State: Proposed, Attempt: i})}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	l.Close()
	if _, err := l.Append(Event{Type: Answer}); err != ErrClosed {
		t.Errorf("Append after Close: %v", err)
	}
	events, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 20 {
		t.Fatalf("read %d events; want 20", len(events))
	}
	for i, ev := range events {
		if ev.Seq != int64(i+1) || ev.Time.IsZero() {
			t.Errorf("event %d: seq %d time %v", i, ev.Seq, ev.Time)
		}
	}
}

// A crash can cut the last line; Open cuts it off and appends after the
// last complete event. A bad line before the last one is corruption.
func TestOpenRepairsTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, _ := Create(path)
	l.Append(Event{Run: "r", Type: RunCreated})
	l.Append(Event{Run: "r", Type: RunState, Data: Marshal(StateData{State: Running})})
	l.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"seq":3,"run":"r","type":"call_st`)
	f.Close()

	l, events, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("%d events; want 2", len(events))
	}
	ev, err := l.Append(Event{Run: "r", Type: Answer})
	if err != nil || ev.Seq != 3 {
		t.Fatalf("append after repair: seq %d, %v", ev.Seq, err)
	}
	l.Close()
	if events, err = Read(path); err != nil || len(events) != 3 {
		t.Fatalf("after repair: %d events, %v", len(events), err)
	}

	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")
	os.WriteFile(path, []byte(lines[0]+"garbage\n"+lines[1]), 0o600)
	if _, err := Read(path); err == nil {
		t.Error("a corrupt line in the middle was accepted")
	}
}

// countSyncs makes l's fsyncs slow and counted.
func countSyncs(l *Log, fail error) *atomic.Int32 {
	var n atomic.Int32
	real := l.sync
	l.sync = func() error {
		n.Add(1)
		time.Sleep(5 * time.Millisecond) // a slow disk: appends pile up behind it
		if fail != nil {
			return fail
		}
		return real()
	}
	return &n
}

// TestGroupCommit checks that concurrent appends share fsyncs, and that
// each returns only once an fsync that began after its write has ended.
func TestGroupCommit(t *testing.T) {
	l, err := Create(filepath.Join(t.TempDir(), "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	syncs := countSyncs(l, nil)
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			ev, err := l.Append(Event{Run: "r", Type: Answer})
			if err != nil {
				t.Error(err)
				return
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.synced < ev.Seq { // one write per event here
				t.Errorf("event %d returned before it was synced (%d writes synced)", ev.Seq, l.synced)
			}
		})
	}
	wg.Wait()
	if n := syncs.Load(); n < 1 || n >= 20 {
		t.Errorf("%d fsyncs for 20 concurrent appends; want fewer, shared", n)
	}
}

func TestStage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	syncs := countSyncs(l, nil)
	steps := []struct {
		name      string
		do        func() error
		wantSyncs int32
		wantRead  int
	}{
		{"stage two", func() error {
			_, err := l.Stage(Event{Run: "r", Type: ModelReply}, Event{Run: "r", Type: CallState})
			return err
		}, 0, 2},
		{"append syncs them with its own", func() error { _, err := l.Append(Event{Run: "r", Type: CallState}); return err }, 1, 3},
		{"sync with nothing new", l.Sync, 1, 3},
		{"stage one", func() error { _, err := l.Stage(Event{Run: "r", Type: ToolResult}); return err }, 1, 4},
		{"sync", l.Sync, 2, 4},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		events, err := Read(path) // staged events are in the file already
		if err != nil {
			t.Fatal(err)
		}
		if n := syncs.Load(); n != s.wantSyncs || len(events) != s.wantRead {
			t.Errorf("%s: %d fsyncs, %d events in the file; want %d, %d", s.name, n, len(events), s.wantSyncs, s.wantRead)
		}
	}
}

func TestSyncFailure(t *testing.T) {
	l, err := Create(filepath.Join(t.TempDir(), "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	countSyncs(l, errors.New("disk gone"))
	if _, err := l.Stage(Event{Run: "r", Type: ModelReply}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(Event{Run: "r", Type: CallState}); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Errorf("Append with a failing fsync: %v", err)
	}
	if err := l.Sync(); err == nil {
		t.Error("Sync after a failed fsync succeeded")
	}
}

// TestOpenKeep: Open cuts the log after the events keep lets stand, and
// appends after them; an error from keep leaves the file as it was.
func TestOpenKeep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l, _ := Create(path)
	for _, typ := range []Type{RunCreated, CallState, ToolResult, CallState} {
		if _, err := l.Append(Event{Run: "r", Type: typ}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	before, _ := os.ReadFile(path)
	if _, _, err := Open(path, func([]Event, func(string) bool) (int, error) { return 0, errors.New("store unreadable") }); err == nil {
		t.Fatal("Open with a failing keep succeeded")
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("Open with a failing keep changed the file")
	}
	l, events, err := Open(path, func([]Event, func(string) bool) (int, error) { return 2, nil })
	if err != nil || len(events) != 2 {
		t.Fatalf("Open keeping 2: %d events, %v", len(events), err)
	}
	if d := l.Durable(); d != 2 {
		t.Errorf("Durable after Open = %d; want 2", d)
	}
	if ev, err := l.Append(Event{Run: "r", Type: RunState}); err != nil || ev.Seq != 3 {
		t.Fatalf("append after the cut: seq %d, %v", ev.Seq, err)
	}
	l.Close()
	events, err = Read(path)
	if err != nil || len(events) != 3 || events[2].Type != RunState {
		t.Fatalf("after the cut: %d events, %v", len(events), err)
	}
}
