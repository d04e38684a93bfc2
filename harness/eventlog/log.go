package eventlog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/harness/visible"
)

// Event is one line of a run's log. Seq numbers the events of one log from
// 1; Data holds the payload of the event's Type.
type Event struct {
	Seq  int64           `json:"seq"`
	Time time.Time       `json:"time"`
	Run  string          `json:"run"`
	Type Type            `json:"type"`
	Call string          `json:"call,omitempty"`
	Data json.RawMessage `json:"data,omitempty"`
}

// Decode unmarshals the event's payload into v.
func (e Event) Decode(v any) error {
	if len(e.Data) == 0 {
		return nil
	}
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("event %d (%s): %w", e.Seq, e.Type, err)
	}
	return nil
}

// Log is an open event log. Its methods are safe for concurrent use.
//
// Appends share fsyncs (group commit): an Append whose line was written
// while another's fsync was running waits for that one to end and then
// syncs, in one fsync, every line written meanwhile. Staged events are
// written at once but made durable by the next Append or Sync. Either way
// no call returns before its events are on disk, and before what the
// events staged by StageAfter name is.
type Log struct {
	mu     sync.Mutex
	done   *sync.Cond // signalled when an fsync or a condition ends
	f      *os.File
	path   string
	seq    int64
	now    func() time.Time
	closed bool
	sync   func() error // the fsync of f; tests count it

	written   int64 // the number of writes made, staged ones included
	synced    int64 // the writes an fsync has made durable
	syncedSeq int64 // the seq of the last event they hold
	durable   int64 // the seq of the last event durable with what it names
	syncing   bool  // an fsync is running, without mu
	syncErr   error // the last fsync's error, for the writes it covered
	failedAt  int64 // the write count the failed fsync covered

	// conds are the conditions of StageAfter not known to have returned,
	// in the order of their writes; a sync waits for those of the writes
	// it covers. broken is set when one failed: the log refuses every
	// later write and sync.
	conds  []*condition
	broken error
}

// condition is what a write of StageAfter waits for.
type condition struct {
	write  int64 // the write it guards, counted from 1
	before int64 // the seq of the last event before that write
	ended  bool
	failed bool // what the write names may be lost: nothing from it on is durable
}

func newLog(f *os.File, path string) *Log {
	l := &Log{f: f, path: path, now: time.Now, sync: f.Sync}
	l.done = sync.NewCond(&l.mu)
	return l
}

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("eventlog: closed")

// Create creates a new log at path; it fails if the file exists.
func Create(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	if err := syncDir(path); err != nil {
		f.Close()
		return nil, err
	}
	return newLog(f, path), nil
}

// Open reads an existing log and reopens it for appending. A torn last line
// (no newline, or not JSON) is cut off before anything is appended. keep,
// when not nil, is given the complete events and returns how many of them
// stand: the events after those are cut off too (an error from keep
// leaves the file as it is). A reader uses it for
// events that StageAfter wrote while what they name was being made
// durable, which a crash of the machine can leave naming something it
// lost (nothing after them was reported or acted on).
func Open(path string, keep func([]Event) (int, error)) (*Log, []Event, error) {
	events, ends, err := read(path)
	if err != nil {
		return nil, nil, err
	}
	n := len(events)
	if keep != nil {
		k, err := keep(events)
		if err != nil {
			return nil, nil, err
		}
		n = min(max(k, 0), n)
	}
	events = events[:n]
	good := int64(0)
	if n > 0 {
		good = ends[n-1]
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("eventlog: %w", err)
	}
	l := newLog(f, path)
	if st, err := f.Stat(); err == nil && st.Size() > good {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("eventlog: cutting torn tail: %w", err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("eventlog: %w", err)
		}
	}
	if n > 0 {
		l.seq = events[n-1].Seq
		l.syncedSeq, l.durable = l.seq, l.seq
	}
	return l, events, nil
}

// Read returns the complete events of the log at path, ignoring a torn last
// line.
func Read(path string) ([]Event, error) {
	events, _, err := read(path)
	return events, err
}

// read returns the complete events of the log at path and where each ends.
func read(path string) ([]Event, []int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("eventlog: %w", err)
	}
	defer f.Close()
	var (
		events []Event
		ends   []int64
		good   int64
		r      = bufio.NewReaderSize(f, 64<<10)
	)
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return events, ends, nil // a line without newline is torn
		}
		if err != nil {
			return nil, nil, fmt.Errorf("eventlog: %w", err)
		}
		var ev Event
		if jerr := json.Unmarshal(bytes.TrimSpace(line), &ev); jerr != nil {
			// Only the last line can be torn; anything else is corruption.
			if _, perr := r.Peek(1); perr == nil {
				return nil, nil, fmt.Errorf("eventlog: %s: line after seq %d is not an event: %w", path, lastSeq(events), jerr)
			}
			return events, ends, nil
		}
		good += int64(len(line))
		events = append(events, ev)
		ends = append(ends, good)
	}
}

func lastSeq(events []Event) int64 {
	if len(events) == 0 {
		return 0
	}
	return events[len(events)-1].Seq
}

// Append numbers and stamps ev, writes it as one line and fsyncs the file.
// It returns the event as written. When Append returns an error the event
// may or may not be on disk; the caller must not act as if it were.
func (l *Log) Append(ev Event) (Event, error) {
	evs, err := l.AppendAll(ev)
	if err != nil {
		return Event{}, err
	}
	return evs[0], nil
}

// AppendAll appends several events with one write and one fsync: they
// reach the disk together or, after a crash, the torn tail is cut from the
// first incomplete one. The fsync may be shared with other appends, and it
// also makes staged events durable.
func (l *Log) AppendAll(evs ...Event) ([]Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out, err := l.writeLocked(evs)
	if err != nil {
		return nil, err
	}
	if err := l.syncLocked(l.written); err != nil {
		return nil, err
	}
	return out, nil
}

// Stage appends events without waiting for them to be durable: they are
// written to the file at once, so a crash of this process loses nothing,
// and the next Append or Sync puts them on disk with its own. A caller
// must not act on a staged event, or report it, before that.
func (l *Log) Stage(evs ...Event) ([]Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writeLocked(evs)
}

// StageAfter stages events that name something durable makes durable
// (such as an artifact in another file). durable starts at once on a
// goroutine of its own, and the events are written at once too; the next
// Append or Sync returns only when its fsync and durable have both ended,
// so the two syncs run side by side and the caller still reports nothing
// before both are on disk. A crash of the machine meanwhile can leave the
// events in the file without what they name: a reader tells that from
// what they name and cuts the log there (Open's keep). If durable fails,
// every later write and sync of the log fails with its error: the log may
// name something that is lost.
func (l *Log) StageAfter(durable func() error, evs ...Event) ([]Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	before := l.seq
	out, err := l.writeLocked(evs)
	if err != nil {
		return nil, err
	}
	c := &condition{write: l.written, before: before}
	l.conds = append(l.conds, c)
	go func() {
		err := durable()
		l.mu.Lock()
		defer l.mu.Unlock()
		c.ended, c.failed = true, err != nil
		if err != nil && l.broken == nil {
			l.broken = fmt.Errorf("eventlog: what staged events name is not durable: %w", err)
		}
		l.settleLocked()
	}()
	return out, nil
}

// Sync makes every event appended or staged so far durable.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	return l.syncLocked(l.written)
}

// Durable returns the seq of the last event known to be on disk with what
// it names: every event up to it has been fsynced, and the conditions of
// those staged by StageAfter have returned.
func (l *Log) Durable() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.durable
}

// writeLocked numbers, stamps and writes evs as one write.
func (l *Log) writeLocked(evs []Event) ([]Event, error) {
	if l.closed {
		return nil, ErrClosed
	}
	if l.broken != nil {
		return nil, l.broken
	}
	out, buf, err := l.encodeLocked(evs)
	if err != nil {
		return nil, err
	}
	if _, err := l.f.Write(buf); err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	l.seq += int64(len(evs))
	l.written++
	return out, nil
}

// encodeLocked numbers and stamps evs, following the last event written,
// and renders them as lines.
func (l *Log) encodeLocked(evs []Event) ([]Event, []byte, error) {
	var buf []byte
	out := make([]Event, len(evs))
	for i, ev := range evs {
		ev.Seq = l.seq + int64(i) + 1
		if ev.Time.IsZero() {
			ev.Time = l.now().UTC()
		}
		line, err := json.Marshal(ev)
		if err != nil {
			return nil, nil, fmt.Errorf("eventlog: %w", err)
		}
		// A person may read the log with cat or tail: nothing in it is
		// left for a terminal to interpret.
		buf = append(append(buf, visible.JSON(line)...), '\n')
		out[i] = ev
	}
	return out, buf, nil
}

// syncLocked returns once the first n writes are durable, with what they
// name. One caller at a time runs the fsync, with mu released so that
// others can write, and conditions end on their own goroutines; those
// that wrote meanwhile wait for the fsync to end, and the first of them
// to wake syncs for all of them.
func (l *Log) syncLocked(n int64) error {
	for {
		if l.broken != nil {
			return l.broken
		}
		if l.synced >= n {
			if len(l.conds) == 0 || l.conds[0].write > n {
				return nil
			}
			l.done.Wait() // a condition of a write it covers is running
			continue
		}
		if l.syncing {
			l.done.Wait() // an fsync covers only what was written before it
			continue
		}
		if l.syncErr != nil && l.failedAt >= n {
			return l.syncErr
		}
		l.syncing = true
		target, seq := l.written, l.seq
		l.mu.Unlock()
		err := l.sync()
		l.mu.Lock()
		l.syncing = false
		if err != nil {
			// The writes it covered may or may not be on disk: their
			// callers fail, and later syncs try again.
			l.syncErr, l.failedAt = fmt.Errorf("eventlog: %w", err), target
			l.done.Broadcast()
			return l.syncErr
		}
		l.synced, l.syncedSeq = target, seq
		l.settleLocked()
	}
}

// settleLocked drops the conditions that returned nil from the head of
// conds, moves durable on to what the fsyncs and the conditions left
// allow, and wakes the waiters.
func (l *Log) settleLocked() {
	for len(l.conds) > 0 && l.conds[0].ended && !l.conds[0].failed {
		l.conds = l.conds[1:]
	}
	if len(l.conds) > 0 && l.conds[0].write <= l.synced {
		l.durable = l.conds[0].before
	} else {
		l.durable = l.syncedSeq
	}
	l.done.Broadcast()
}

// running reports whether a condition has not returned yet.
func (l *Log) running() bool {
	for _, c := range l.conds {
		if !c.ended {
			return true
		}
	}
	return false
}

// Path is the file the log is written to.
func (l *Log) Path() string { return l.path }

// Close closes the file. Later Appends fail with ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	for l.syncing || l.running() {
		l.done.Wait() // the file stays open until the fsync and the conditions in flight end
	}
	l.closed = true
	return l.f.Close()
}

// syncDir fsyncs the directory holding path, so a new file's name is durable.
func syncDir(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	return nil
}
