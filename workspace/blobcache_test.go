package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

func TestBlobCacheBound(t *testing.T) {
	r1, r2 := &repo{}, &repo{}
	key := func(r *repo, b byte) blobKey { return blobKey{r, plumbing.Hash{b}} }
	tests := []struct {
		name     string
		maxBytes int64
		puts     []blobKey
		sizes    []int
		want     []blobKey // held afterwards
		gone     []blobKey
	}{
		{"within the bound", 400, []blobKey{key(r1, 1), key(r1, 2)}, []int{100, 100}, []blobKey{key(r1, 1), key(r1, 2)}, nil},
		{"least recent out first", 400, []blobKey{key(r1, 1), key(r1, 2), key(r1, 3), key(r1, 4), key(r1, 5)}, []int{100, 100, 100, 100, 100},
			[]blobKey{key(r1, 2), key(r1, 5)}, []blobKey{key(r1, 1)}},
		{"over a quarter is not kept", 400, []blobKey{key(r1, 1), key(r1, 2)}, []int{100, 101}, []blobKey{key(r1, 1)}, []blobKey{key(r1, 2)}},
		{"repositories apart", 400, []blobKey{key(r1, 1)}, []int{10}, []blobKey{key(r1, 1)}, []blobKey{key(r2, 1)}},
		{"no cache", -1, []blobKey{key(r1, 1)}, []int{10}, nil, []blobKey{key(r1, 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newBlobCache(tt.maxBytes)
			for i, k := range tt.puts {
				c.put(k, make([]byte, tt.sizes[i]))
			}
			for _, k := range tt.want {
				if _, ok := c.get(k); !ok {
					t.Errorf("blob %v of %p is not held", k.hash[0], k.repo)
				}
			}
			for _, k := range tt.gone {
				if _, ok := c.get(k); ok {
					t.Errorf("blob %v of %p is held", k.hash[0], k.repo)
				}
			}
			if c.bytes > max(tt.maxBytes, 0) {
				t.Errorf("holds %d bytes, more than %d", c.bytes, tt.maxBytes)
			}
		})
	}
}

// TestBlobCacheLoadsOnce checks that callers missing on one blob while it
// is being inflated wait for that inflation rather than start their own,
// and that a failure reaches its callers but is not kept.
func TestBlobCacheLoadsOnce(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprintf("fail=%v", fail), func(t *testing.T) {
			c := newBlobCache(1 << 20)
			k := blobKey{&repo{}, plumbing.Hash{1}}
			var calls atomic.Int32
			release := make(chan struct{})
			inflate := func() ([]byte, error) {
				calls.Add(1)
				<-release
				if fail {
					return nil, errors.New("broken pack")
				}
				return []byte("content"), nil
			}
			errs := make(chan error, 8)
			load := func() {
				data, err := c.load(k, inflate)
				if err == nil && string(data) != "content" {
					err = fmt.Errorf("got %q", data)
				}
				errs <- err
			}
			var wg sync.WaitGroup
			wg.Go(load)
			for !c.loading(k) {
				runtime.Gosched()
			}
			for range 7 {
				wg.Go(load)
			}
			for c.waiting(k) < 7 && calls.Load() == 1 {
				runtime.Gosched() // until the others wait, or (wrongly) inflate too
			}
			close(release)
			wg.Wait()
			close(errs)
			for err := range errs {
				if (err != nil) != fail {
					t.Errorf("load: %v", err)
				}
			}
			if n := calls.Load(); !fail && n != 1 {
				t.Errorf("%d inflations, want 1", n)
			}
			if _, held := c.get(k); held == fail {
				t.Errorf("held after the load: %v", held)
			}
		})
	}
}

func (c *blobCache) loading(k blobKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inflight[k] != nil
}

func (c *blobCache) waiting(k blobKey) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.inflight[k]; l != nil {
		return l.waiters
	}
	return 0
}

// TestReadBlobPages reads a packed blob larger than go-git's large-object
// threshold (so streamed from its pack) and a small one, in pages at
// every kind of offset, from several callers at once, and compares each
// page with git's copy of the blob. The first read inflates the blob into
// the cache; the rest copy from it.
func TestReadBlobPages(t *testing.T) {
	repo := gitfixture.New(t)
	var big strings.Builder
	for i := 0; big.Len() < 3*largeObjectThreshold; i++ {
		fmt.Fprintf(&big, "line %d of a file larger than the threshold\n", i)
	}
	repo.Commit(t, "two files", map[string]gitfixture.File{
		"big.txt":   gitfixture.Text(big.String()),
		"small.txt": gitfixture.Text("one\ntwo\n"),
	})
	gitfixture.Git(t, repo.Dir, "gc", "-q")
	reg := openOne(t, repo.Dir, nil)
	ws := reg.workspaces["ws"]
	snap := snapshot(t, reg, "HEAD")
	ctx := context.Background()
	for _, path := range []string{"big.txt", "small.txt"} {
		want := []byte(gitfixture.Git(t, repo.Dir, "cat-file", "-p", "HEAD:"+path))
		size := int64(len(want))
		var wg sync.WaitGroup
		for caller := range 4 {
			wg.Go(func() {
				for _, page := range []struct{ offset, limit int64 }{
					{0, size}, {0, 7}, {1, 1 << 16}, {size / 2, 1 << 20}, {size - 3, 100}, {size, 10}, {size + 5, 10},
				} {
					f, err := snap.ReadFile(ctx, path, ReadOptions{Offset: page.offset, Limit: page.limit})
					if err != nil {
						t.Errorf("caller %d, %s %+v: %v", caller, path, page, err)
						return
					}
					from := min(page.offset, size)
					if w := want[from:min(from+page.limit, size)]; !bytes.Equal(f.Data, w) || f.Size != size {
						t.Errorf("caller %d, %s %+v: %d bytes, size %d; want %d bytes, size %d", caller, path, page, len(f.Data), f.Size, len(w), size)
					}
					if len(f.Data) > 0 {
						f.Data[0] ^= 0xff // callers own what they read: this must not change the cache
					}
					shared, err := snap.ReadFile(ctx, path, ReadOptions{Offset: page.offset, Limit: page.limit, Shared: true})
					if w := want[from:min(from+page.limit, size)]; err != nil || !bytes.Equal(shared.Data, w) {
						t.Errorf("caller %d, %s %+v, shared: %d bytes, %v; want %d bytes", caller, path, page, len(shared.Data), err, len(w))
					}
				}
			})
		}
		wg.Wait()
		h := plumbing.NewHash(blobSHA(want))
		if _, ok := ws.repo.blobs.get(blobKey{ws.repo, h}); !ok {
			t.Errorf("%s is not in the cache after reads", path)
		}
	}
}
