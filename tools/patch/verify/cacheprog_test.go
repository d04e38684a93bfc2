package verify

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cacheSession speaks to serveCacheProg as the go command does, and
// returns its responses after the initial one.
func cacheSession(t *testing.T, cfg cacheProgConfig, requests string) []cacheResponse {
	t.Helper()
	var out strings.Builder
	if code := serveCacheProg(cfg.encode(), strings.NewReader(requests), &out); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var resps []cacheResponse
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var r cacheResponse
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		resps = append(resps, r)
	}
	if len(resps) == 0 || len(resps[0].KnownCommands) != 3 {
		t.Fatalf("no capabilities first: %+v", resps)
	}
	return resps[1:]
}

func putRequest(id int, action, output byte, body string) string {
	b64, _ := json.Marshal(base64.StdEncoding.EncodeToString([]byte(body)))
	return fmt.Sprintf(`{"ID":%d,"Command":"put","ActionID":%q,"OutputID":%q,"BodySize":%d}`+"\n%s\n", id,
		base64.StdEncoding.EncodeToString([]byte{action}), base64.StdEncoding.EncodeToString([]byte{output}), len(body), b64)
}

func getRequest(id int, action byte) string {
	return fmt.Sprintf(`{"ID":%d,"Command":"get","ActionID":%q}`+"\n", id, base64.StdEncoding.EncodeToString([]byte{action}))
}

// TestCacheProg checks that a put lands in the shared cache only when the
// check may write it, and that a get finds the shared entries and the
// check's own.
func TestCacheProg(t *testing.T) {
	shared, private := t.TempDir(), t.TempDir()
	// A check that runs no code fills the shared cache.
	resps := cacheSession(t, cacheProgConfig{Shared: shared, Private: private, Write: true}, putRequest(1, 0xaa, 0xbb, "shared body")+`{"ID":2,"Command":"close"}`+"\n")
	if resps[0].Err != "" || !strings.HasPrefix(resps[0].DiskPath, shared) {
		t.Fatalf("shared put: %+v", resps[0])
	}
	// A test run reads it, and its own puts stay private.
	resps = cacheSession(t, cacheProgConfig{Shared: shared, Private: private},
		getRequest(1, 0xaa)+putRequest(2, 0xcc, 0xdd, "private body")+getRequest(3, 0xcc)+getRequest(4, 0xee))
	if r := resps[0]; r.Miss || r.Size != 11 || string(r.OutputID) != "\xbb" {
		t.Errorf("get of a shared entry: %+v", r)
	}
	if r := resps[1]; r.Err != "" || !strings.HasPrefix(r.DiskPath, private) {
		t.Errorf("put by a test run: %+v", r)
	}
	if r := resps[2]; r.Miss || !strings.HasPrefix(r.DiskPath, private) {
		t.Errorf("get of a private entry: %+v", r)
	}
	if !resps[3].Miss {
		t.Errorf("get of a missing entry: %+v", resps[3])
	}
	if body, _ := os.ReadFile(resps[2].DiskPath); string(body) != "private body" {
		t.Errorf("private body %q", body)
	}
	entries, _ := os.ReadDir(filepath.Join(shared, "a"))
	if len(entries) != 1 {
		t.Errorf("the test run wrote the shared cache: %d entries", len(entries))
	}
}
