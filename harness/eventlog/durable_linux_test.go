package eventlog

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/benchlat"
)

// BenchmarkDurableWrite measures the ways a write-ahead log can make one
// record of about 200 bytes durable, on the disk the test's temporary
// directory is on, to show what a harness call's durable points can cost:
//
//   - append-fsync, append-fdatasync: an append to a growing file, then a
//     sync. Each append changes the file's size, so even fdatasync commits
//     the file system's journal.
//   - append-odsync: the same append through O_DSYNC.
//   - fallocate-fdatasync: an overwrite of space reserved in advance with
//     fallocate. The size does not change, but the extent written is
//     marked unwritten until then, and converting it is a metadata change.
//   - keepsize-fdatasync: an append into space reserved past the end
//     (FALLOC_FL_KEEP_SIZE), so no block is allocated on the way, but
//     the size still changes.
//   - zeroed-fdatasync, zeroed-odsync: an overwrite of space filled with
//     written zeros (and synced) in advance: pure data, no metadata to
//     commit.
//   - zeroed-group4: four writers at once into the zero-filled file, each
//     waiting for a shared fdatasync (group commit); latency per write.
//
// Compare the p50s side by side in one run: the disk's figures drift.
func BenchmarkDurableWrite(b *testing.B) {
	rec := make([]byte, 200)
	for i := range rec {
		rec[i] = 'x'
	}
	rec[len(rec)-1] = '\n'
	const region = 64 << 20 // reserved ahead; far more than b.N records need

	b.Run("append-fsync", func(b *testing.B) {
		f := openLog(b, os.O_APPEND, 0)
		benchlat.Measure(b, func(int) error { return writeThen(f, rec, -1, f.Sync) })
	})
	b.Run("append-fdatasync", func(b *testing.B) {
		f := openLog(b, os.O_APPEND, 0)
		benchlat.Measure(b, func(int) error { return writeThen(f, rec, -1, fdatasync(f)) })
	})
	b.Run("append-odsync", func(b *testing.B) {
		f := openLog(b, os.O_APPEND|syscall.O_DSYNC, 0)
		benchlat.Measure(b, func(int) error { return writeThen(f, rec, -1, nil) })
	})
	b.Run("fallocate-fdatasync", func(b *testing.B) {
		f := openLog(b, 0, 0)
		if err := syscall.Fallocate(int(f.Fd()), 0, 0, region); err != nil {
			b.Skipf("fallocate is not supported here: %v", err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		benchlat.Measure(b, func(i int) error { return writeThen(f, rec, int64(i*len(rec)), fdatasync(f)) })
	})
	b.Run("keepsize-fdatasync", func(b *testing.B) {
		f := openLog(b, os.O_APPEND, 0)
		const keepSize = 0x01 // FALLOC_FL_KEEP_SIZE: blocks reserved past the end; appends still grow the size
		if err := syscall.Fallocate(int(f.Fd()), keepSize, 0, region); err != nil {
			b.Skipf("fallocate is not supported here: %v", err)
		}
		benchlat.Measure(b, func(int) error { return writeThen(f, rec, -1, fdatasync(f)) })
	})
	b.Run("zeroed-fdatasync", func(b *testing.B) {
		f := openLog(b, 0, region)
		benchlat.Measure(b, func(i int) error { return writeThen(f, rec, int64(i*len(rec)), fdatasync(f)) })
	})
	b.Run("zeroed-odsync", func(b *testing.B) {
		f := openLog(b, syscall.O_DSYNC, region)
		benchlat.Measure(b, func(i int) error { return writeThen(f, rec, int64(i*len(rec)), nil) })
	})
	b.Run("zeroed-group4", func(b *testing.B) {
		f := openLog(b, 0, region)
		g := &groupSync{sync: fdatasync(f)}
		var (
			mu  sync.Mutex
			off int64
		)
		measureParallel(b, 4, func() error {
			mu.Lock()
			at := off
			off += int64(len(rec))
			mu.Unlock()
			if _, err := f.WriteAt(rec, at); err != nil {
				return err
			}
			return g.wait()
		})
	})
}

// openLog creates a log file in a new temporary directory, opened for
// writing with extra flags; with zeroed > 0 it first writes and syncs that
// many zero bytes.
func openLog(b *testing.B, flags int, zeroed int64) *os.File {
	b.Helper()
	path := filepath.Join(b.TempDir(), "log")
	if zeroed > 0 {
		if err := os.WriteFile(path, make([]byte, zeroed), 0o600); err != nil {
			b.Fatal(err)
		}
		z, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		err = z.Sync()
		z.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|flags, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}

// writeThen writes rec at off (appends when off < 0), then calls sync
// unless it is nil.
func writeThen(f *os.File, rec []byte, off int64, sync func() error) error {
	var err error
	if off < 0 {
		_, err = f.Write(rec)
	} else {
		_, err = f.WriteAt(rec, off)
	}
	if err != nil || sync == nil {
		return err
	}
	return sync()
}

func fdatasync(f *os.File) func() error {
	return func() error { return syscall.Fdatasync(int(f.Fd())) }
}

// groupSync lets concurrent writers share syncs: a writer waits for a sync
// that started after its write, running one itself when none is running.
type groupSync struct {
	sync    func() error
	mu      sync.Mutex
	cond    *sync.Cond
	started int64 // syncs started
	ended   int64 // syncs ended
	running bool
}

func (g *groupSync) wait() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cond == nil {
		g.cond = sync.NewCond(&g.mu)
	}
	need := g.started + 1 // a sync that starts from now on covers our write
	for g.ended < need {
		if g.running {
			g.cond.Wait()
			continue
		}
		g.running = true
		g.started++
		g.mu.Unlock()
		err := g.sync()
		g.mu.Lock()
		g.running = false
		g.ended = g.started
		g.cond.Broadcast()
		if err != nil {
			return err
		}
	}
	return nil
}

// measureParallel runs op b.N times in all from n goroutines and reports
// the latency of each call as benchlat does.
func measureParallel(b *testing.B, n int, op func() error) {
	lat := make([][]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := range n {
		wg.Go(func() {
			for i := w; i < b.N && errs[w] == nil; i += n {
				start := time.Now()
				errs[w] = op()
				lat[w] = append(lat[w], time.Since(start))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
	benchlat.Report(b, slices.Concat(lat...))
}
