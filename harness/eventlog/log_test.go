package eventlog

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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

	l, events, err := Open(path)
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
