package client_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/repo-mcp/repo-mcp/client"
)

// TestReleasedFramesAreReused checks, on stdio and over HTTP, that the
// buffer a large answer was read into is read into again only once the
// Result made from it is released: a result kept is intact after many large answers whose results
// were released, a released result's buffer serves a later answer, and a
// released result no longer shows its bytes.
func TestReleasedFramesAreReused(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		c, err := client.Start(context.Background(), misbehave(t, "normal"), client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		checkReleasedFramesAreReused(t, c)
	})
	t.Run("http", func(t *testing.T) {
		url, _, _ := goSDKHTTP(t, &mcp.StreamableHTTPOptions{JSONResponse: true, Stateless: true})
		c, err := client.Dial(context.Background(), client.Endpoint{URL: withLength(t, url)}, client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		checkReleasedFramesAreReused(t, c)
	})
}

// withLength serves what url serves, each body whole with its
// Content-Length, as repo-mcp's answers to tools/call are, which the
// client reads into a buffer of that size; it returns its own URL.
func withLength(t *testing.T, url string) string {
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, url, r.Body)
		req.Header = r.Header.Clone()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(resp.StatusCode)
		w.Write(body)
	}))
	t.Cleanup(proxy.Close)
	return proxy.URL
}

func checkReleasedFramesAreReused(t *testing.T, c *client.Conn) {
	ctx := context.Background()
	// Each answer is a frame of 1.5 MiB, larger than the reader keeps for
	// itself, so its buffer goes with the frame.
	echo := func(b byte) *client.Result {
		t.Helper()
		msg := strings.Repeat(string(b), 3<<19)
		res, err := c.Call(ctx, "echo", map[string]any{"msg": msg})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text() != msg || !bytes.Contains(res.Raw, []byte(msg)) {
			t.Fatalf("echo of %q: text %.20q, raw %.60q", b, res.Text(), res.Raw)
		}
		return res
	}
	kept := echo('k')
	keptRaw := bytes.Clone(kept.Raw)
	var lastStart, lastEnd uintptr // the bytes of the last result released
	reused := false
	for i := range 8 {
		res := echo('a' + byte(i))
		start := uintptr(unsafe.Pointer(unsafe.SliceData(res.Raw)))
		reused = reused || start >= lastStart && start < lastEnd
		lastStart, lastEnd = start, start+uintptr(cap(res.Raw))
		res.Release()
		if res.Raw != nil || len(res.Content) != 1 || res.Content[0].Raw != nil {
			t.Fatalf("released result still shows its bytes: raw %d, content %v", len(res.Raw), res.Content)
		}
	}
	if !bytes.Equal(kept.Raw, keptRaw) {
		t.Fatalf("a result not released was overwritten by a later answer: %.60q...", kept.Raw)
	}
	if !reused {
		t.Fatal("no answer was read into a buffer a released result gave back")
	}
	kept.Release()
	kept.Release() // a second time is a no-op
}
