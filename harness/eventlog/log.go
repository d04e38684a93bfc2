package eventlog

import (
	"encoding/json"
	"errors"
	"fmt"
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

// reserve is how far a log's file grows at a time, in zeros written ahead
// of its lines: a sync of lines written over zeros flushes data only,
// where a sync of an append also commits the file's new size.
const reserve = 64 << 10

// Log is an open event log. Its methods are safe for concurrent use.
//
// Appends share syncs (group commit): an Append whose line was written
// while another's sync was running waits for that one to end and then
// syncs, in one sync, every line written meanwhile. Staged events and
// artifacts are written at once but made durable by the next Append or
// Sync. Either way no call returns before its events are on disk.
type Log struct {
	mu     sync.Mutex
	done   *sync.Cond // signalled when a sync ends
	f      *os.File
	path   string
	seq    int64
	now    func() time.Time
	closed bool
	sync   func() error // the sync of f; tests count it

	end       int64           // where the next line goes; zeros from here to size
	size      int64           // the file's size
	artifacts map[string]span // the artifacts the log holds, by digest

	written  int64 // the number of writes made, staged ones included
	synced   int64 // the writes a sync has made durable
	durable  int64 // the seq of the last event they hold
	syncing  bool  // a sync is running, without mu
	syncErr  error // the last sync's error, for the writes it covered
	failedAt int64 // the write count the failed sync covered
}

func newLog(f *os.File, path string, size int64) *Log {
	l := &Log{f: f, path: path, now: time.Now, end: size, size: size, artifacts: map[string]span{}}
	l.sync = func() error { return syncData(f) }
	l.done = sync.NewCond(&l.mu)
	return l
}

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("eventlog: closed")

// Create creates a new log at path; it fails if the file exists.
func Create(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("eventlog: %w", err)
	}
	if err := syncDir(path); err != nil {
		f.Close()
		return nil, err
	}
	return newLog(f, path, 0), nil
}

// Append numbers and stamps ev, writes it as one line and syncs the file.
// It returns the event as written. When Append returns an error the event
// may or may not be on disk; the caller must not act as if it were.
func (l *Log) Append(ev Event) (Event, error) {
	evs, err := l.AppendAll(ev)
	if err != nil {
		return Event{}, err
	}
	return evs[0], nil
}

// AppendAll appends several events with one write and one sync: they
// reach the disk together or, after a crash, the log is cut from the
// first incomplete one. The sync may be shared with other appends, and it
// also makes what was staged durable.
func (l *Log) AppendAll(evs ...Event) ([]Event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out, err := l.writeEventsLocked(evs)
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
	return l.writeEventsLocked(evs)
}

// Sync makes every event and artifact written so far durable.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	return l.syncLocked(l.written)
}

// Durable returns the seq of the last event known to be on disk.
func (l *Log) Durable() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.durable
}

func (l *Log) usableLocked() error {
	if l.closed {
		return ErrClosed
	}
	return nil
}

// writeEventsLocked numbers, stamps and writes evs as one write.
func (l *Log) writeEventsLocked(evs []Event) ([]Event, error) {
	if err := l.usableLocked(); err != nil {
		return nil, err
	}
	out, buf, err := l.encodeLocked(evs)
	if err != nil {
		return nil, err
	}
	if err := l.writeLocked(buf); err != nil {
		return nil, err
	}
	l.seq += int64(len(evs))
	return out, nil
}

// writeLocked writes buf at the end of the log's lines, over the zeros
// reserved there, reserving more first when they do not hold it.
func (l *Log) writeLocked(buf []byte) error {
	if need := l.end + int64(len(buf)); need > l.size {
		size := (need + reserve) / reserve * reserve
		if _, err := l.f.WriteAt(make([]byte, size-need), need); err != nil {
			return fmt.Errorf("eventlog: reserving space: %w", err)
		}
		l.size = size
	}
	if _, err := l.f.WriteAt(buf, l.end); err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	l.end += int64(len(buf))
	l.written++
	return nil
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

// syncLocked returns once the first n writes are durable. One caller at a
// time runs the sync, with mu released so that others can write; those
// that wrote meanwhile wait for it to end, and the first of them to wake
// syncs for all of them.
func (l *Log) syncLocked(n int64) error {
	for {
		if l.synced >= n {
			return nil
		}
		if l.syncing {
			l.done.Wait() // a sync covers only what was written before it
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
		l.done.Broadcast()
		if err != nil {
			// The writes it covered may or may not be on disk: their
			// callers fail, and later syncs try again.
			l.syncErr, l.failedAt = fmt.Errorf("eventlog: %w", err), target
			return l.syncErr
		}
		l.synced, l.durable = target, seq
	}
}

// Path is the file the log is written to.
func (l *Log) Path() string { return l.path }

// Close gives back the zeros reserved past the log's lines and closes the
// file. Later Appends fail with ErrClosed. The truncation is not synced:
// a crash before it reaches the disk leaves the zeros, which readers
// ignore.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	for l.syncing {
		l.done.Wait() // the file stays open until the sync in flight ends
	}
	l.closed = true
	var err error
	if l.size > l.end {
		err = l.f.Truncate(l.end)
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("eventlog: %w", err)
	}
	return nil
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
