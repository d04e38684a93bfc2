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
// no call returns before its events are on disk.
type Log struct {
	mu     sync.Mutex
	done   *sync.Cond // signalled when an fsync ends
	f      *os.File
	path   string
	seq    int64
	now    func() time.Time
	closed bool
	sync   func() error // the fsync of f; tests count it

	written  int64 // the number of writes made, staged ones included
	synced   int64 // the writes an fsync has made durable
	durable  int64 // the seq of the last event they hold
	syncing  bool  // an fsync is running, without mu
	syncErr  error // the last fsync's error, for the writes it covered
	failedAt int64 // the write count the failed fsync covered

	// queue holds writes that may not reach the file yet (StageAfter),
	// and every write after them, in order; a sync waits until it is
	// empty. broken is set when a write's condition failed: what it held
	// is dropped and the log refuses every later write.
	queue  []*heldWrite
	broken error
}

// heldWrite is a write waiting in the queue: ready is closed when its
// condition has returned, with err set.
type heldWrite struct {
	buf   []byte
	ready chan struct{}
	err   error
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
// (no newline, or not JSON) is cut off before anything is appended.
func Open(path string) (*Log, []Event, error) {
	events, good, err := read(path)
	if err != nil {
		return nil, nil, err
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
	if n := len(events); n > 0 {
		l.seq = events[n-1].Seq
	}
	return l, events, nil
}

// Read returns the complete events of the log at path, ignoring a torn last
// line.
func Read(path string) ([]Event, error) {
	events, _, err := read(path)
	return events, err
}

func read(path string) ([]Event, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("eventlog: %w", err)
	}
	defer f.Close()
	var (
		events []Event
		good   int64
		r      = bufio.NewReaderSize(f, 64<<10)
	)
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return events, good, nil // a line without newline is torn
		}
		if err != nil {
			return nil, 0, fmt.Errorf("eventlog: %w", err)
		}
		var ev Event
		if jerr := json.Unmarshal(bytes.TrimSpace(line), &ev); jerr != nil {
			// Only the last line can be torn; anything else is corruption.
			if _, perr := r.Peek(1); perr == nil {
				return nil, 0, fmt.Errorf("eventlog: %s: line after seq %d is not an event: %w", path, lastSeq(events), jerr)
			}
			return events, good, nil
		}
		events = append(events, ev)
		good += int64(len(line))
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

// StageAfter stages events that must not reach the file before durable
// returns: durable starts at once on a goroutine of its own (it makes
// durable what the events name, such as an artifact in another file), and
// the events are written when it returns nil. Events appended or staged
// meanwhile are written after them, and a Sync or Append waits for them
// all, so the caller goes on while durable runs and still reports nothing
// before it is on disk. If durable fails, the events are never written and
// every later write and sync of the log fails with its error: the log
// would otherwise name something that may be lost.
func (l *Log) StageAfter(durable func() error, evs ...Event) ([]Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out, buf, err := l.encodeLocked(evs)
	if err != nil {
		return nil, err
	}
	w := &heldWrite{buf: buf, ready: make(chan struct{})}
	l.queue = append(l.queue, w)
	l.advanceLocked(len(evs))
	go func() {
		err := durable()
		l.mu.Lock()
		defer l.mu.Unlock()
		w.err = err
		close(w.ready)
		l.drainLocked()
	}()
	return out, nil
}

// drainLocked writes the queue's writes whose conditions have returned,
// in order, up to the first still running.
func (l *Log) drainLocked() {
	for len(l.queue) > 0 && l.broken == nil {
		w := l.queue[0]
		select {
		case <-w.ready:
		default:
			return
		}
		err := w.err
		if err == nil {
			_, err = l.f.Write(w.buf)
		}
		if err != nil {
			l.broken = fmt.Errorf("eventlog: a staged write was dropped: %w", err)
		}
		l.queue = l.queue[1:]
	}
	if l.broken != nil {
		l.queue = nil
	}
	l.done.Broadcast()
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

// Durable returns the seq of the last event known to be on disk: every
// event up to it has been fsynced.
func (l *Log) Durable() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.durable
}

// writeLocked numbers, stamps and writes evs as one write: to the file,
// or behind the queue's writes while there are any.
func (l *Log) writeLocked(evs []Event) ([]Event, error) {
	out, buf, err := l.encodeLocked(evs)
	if err != nil {
		return nil, err
	}
	if len(l.queue) > 0 {
		w := &heldWrite{buf: buf, ready: make(chan struct{})}
		close(w.ready)
		l.queue = append(l.queue, w)
	} else if _, err := l.f.Write(buf); err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	l.advanceLocked(len(evs))
	return out, nil
}

// encodeLocked numbers and stamps evs, following the last event written
// or queued, and renders them as lines.
func (l *Log) encodeLocked(evs []Event) ([]Event, []byte, error) {
	if l.closed {
		return nil, nil, ErrClosed
	}
	if l.broken != nil {
		return nil, nil, l.broken
	}
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

// advanceLocked counts a write of n events.
func (l *Log) advanceLocked(n int) {
	l.seq += int64(n)
	l.written++
}

// syncLocked returns once the first n writes are durable. One caller at a
// time runs the fsync, with mu released so that others can write; those
// that wrote meanwhile wait for it to end, and the first of them to wake
// syncs for all of them.
func (l *Log) syncLocked(n int64) error {
	for l.synced < n {
		if l.broken != nil {
			return l.broken
		}
		if l.syncing || len(l.queue) > 0 {
			l.done.Wait() // an fsync covers only what is in the file
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
		l.synced, l.durable = target, seq
		l.done.Broadcast()
	}
	return nil
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
	for l.syncing || len(l.queue) > 0 {
		l.done.Wait() // the file stays open until the fsync and the writes in flight end
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
