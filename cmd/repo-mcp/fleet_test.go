package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/mcphttp"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// TestFleet runs repo-mcp as a team would: three replicas behind HAProxy
// on loopback, sharing one repository directory, one index cache and one
// state key. It runs the same bounded mixed load (reads, listings, text
// and symbol searches, proposals, applies to branches of their own and to
// one shared branch, each confirmed by the person through another replica
// than the one that asked) against one replica alone, then against the
// three, killing one with SIGKILL mid-run and restarting it. Then it
// checks that every call got a defined answer, no patch was applied
// twice, no branch moved without a recorded apply, the patches' histories
// match the three replicas' audit logs, and the restarted replica answers
// searches from the shared cache exactly as the others do. It logs calls
// per second and latency percentiles for both runs, side by side.
func TestFleet(t *testing.T) {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("REPO_MCP_REQUIRE_PEERS") == "1" {
			t.Fatal("haproxy is not installed (.ci/install-peers installs it)")
		}
		t.Skip("haproxy is not installed (.ci/install-peers installs it)")
	}
	f := newFleet(t)
	solo := f.load(t, "solo", func(int) string { return f.replicas[0].url }, nil)
	f.startRest(t)
	front := f.startHAProxy(t, haproxy)
	killed := make(chan struct{})
	fleet := f.load(t, "fleet", func(int) string { return front }, func() {
		// Half-way: one replica dies without a chance to clean up, and
		// comes back on the same port, the orchestrator's way.
		f.replicas[1].kill()
		time.Sleep(300 * time.Millisecond)
		f.replicas[1] = startReplica(t, f.args(1)...)
		close(killed)
	})
	<-killed
	t.Logf("%-6s %8s %8s %9s %9s  %s", "run", "calls", "calls/s", "p50", "p99", "answers")
	for _, r := range []*loadResult{solo, fleet} {
		t.Logf("%-6s %8d %8.1f %9v %9v  %v", r.name, r.calls, r.perSecond(), r.percentile(50), r.percentile(99), r.outcomes)
	}
	for _, r := range []*loadResult{solo, fleet} {
		if n := r.outcomes["undefined"]; n > 0 {
			t.Errorf("%s: %d calls got no defined answer: %v", r.name, n, r.undefined)
		}
	}
	// An internal failure is a bug: none is expected under this load.
	var failures []string
	for _, rep := range f.replicas {
		for line := range strings.Lines(rep.log()) {
			if strings.Contains(line, `"tool failed"`) {
				failures = append(failures, strings.TrimSpace(line))
			}
		}
	}
	if n := solo.outcomes["internal"] + fleet.outcomes["internal"]; n > 0 || len(failures) > 0 {
		t.Errorf("%d calls failed internally; the replicas logged:\n%s", n, strings.Join(failures, "\n"))
	}
	f.settle(t)
	f.checkRepository(t)
	f.checkCache(t)
}

// settle gives intents the killed replica left behind the time the product
// takes to settle them: repo_info settles intents, a record ref whose lock
// the dead replica held is free once the lock is stale
// (workspace/reflock.go, 30 s), and an intent whose branch did not move
// may be dropped once it is [workspace.IntentStale] old.
func (f *fleet) settle(t *testing.T) {
	git := func(args ...string) string { return gitfixture.Git(t, f.repo, args...) }
	start := time.Now()
	for git("for-each-ref", "refs/repo-mcp/intents/") != "" && time.Since(start) < settleWait {
		_, outcome, detail := answer(mcphttp.Post(f.replicaURL(0), "", "repo_info", mcphttp.Call(1, "repo_info", `{"workspace_id":"fx"}`, "")))
		if outcome != "ok" {
			t.Logf("repo_info while settling: %s %s", outcome, detail)
		}
		time.Sleep(2 * time.Second)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Logf("intents settled after the run in %v", d.Round(time.Second))
	}
}

// settleWait bounds settle: an intent's staleness plus a stale lock's,
// with room for a loaded machine.
const settleWait = workspace.IntentStale + 60*time.Second

// fleet is the shared state of the replicas and what the load did.
type fleet struct {
	repo, config, key, cache, dir string
	ports                         []int
	replicas                      []*replica
}

func newFleet(t *testing.T) *fleet {
	repo := gitfixture.New(t)
	files := map[string]gitfixture.File{
		"go.mod":    gitfixture.Text("module example.com/fleet\n"),
		"README.md": gitfixture.Text("# Fleet\nread by peers\n"),
	}
	for i := range 40 {
		files[fmt.Sprintf("pkg%d/pkg.go", i)] = gitfixture.Text(fmt.Sprintf("package pkg%d\n\n// Greet%d says hello.\nfunc Greet%d() string { return \"hello %d\" }\n", i, i, i, i))
	}
	repo.Commit(t, "first", files)
	f := &fleet{repo: repo.Dir, dir: t.TempDir()}
	f.config, f.key, f.cache = filepath.Join(f.dir, "repo-mcp.yaml"), filepath.Join(f.dir, "state.key"), filepath.Join(f.dir, "cache")
	writeFile(t, f.config, fmt.Sprintf("workspaces:\n  - id: fx\n    root: %q\n", repo.Dir))
	writeFile(t, f.key, "0123456789abcdef0123456789abcdef0123456789abcdef\n")
	for range 4 { // three replicas and HAProxy
		f.ports = append(f.ports, freePort(t))
	}
	f.replicas = []*replica{startReplica(t, f.args(0)...)}
	return f
}

func (f *fleet) startRest(t *testing.T) {
	for i := 1; i < 3; i++ {
		f.replicas = append(f.replicas, startReplica(t, f.args(i)...))
	}
}

// args are replica i's: its port, the shared repository, cache and key,
// and its own audit log, which outlives a kill.
func (f *fleet) args(i int) []string {
	return []string{"serve", "--http", fmt.Sprintf("127.0.0.1:%d", f.ports[i]), "--config", f.config,
		"--index-cache", f.cache, "--state-key-file", f.key, "--audit-log", filepath.Join(f.dir, fmt.Sprintf("audit-%d.jsonl", i)),
		"--max-calls-per-caller", "64", "--drain-timeout", "2s"}
}

// startHAProxy starts HAProxy in front of the replicas, sending calls
// only to ready ones, and returns its /mcp URL.
func (f *fleet) startHAProxy(t *testing.T, haproxy string) string {
	var servers strings.Builder
	for i := range 3 {
		fmt.Fprintf(&servers, "  server r%d 127.0.0.1:%d check\n", i, f.ports[i])
	}
	cfg := filepath.Join(f.dir, "haproxy.cfg")
	writeFile(t, cfg, fmt.Sprintf(`global
  maxconn 512
defaults
  mode http
  timeout connect 1s
  timeout client 60s
  timeout server 60s
  retries 2
  option redispatch
frontend mcp
  bind 127.0.0.1:%d
  default_backend replicas
backend replicas
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 100ms fall 1 rise 1
%s`, f.ports[3], servers.String()))
	cmd := exec.Command(haproxy, "-db", "-f", cfg)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", f.ports[3])
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return url
			}
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("HAProxy did not come up:\n%s", out)
		}
	}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// loadResult is what one run of the load measured.
type loadResult struct {
	name      string
	calls     int
	elapsed   time.Duration
	latencies []time.Duration
	outcomes  map[string]int
	undefined []string
}

func (r *loadResult) perSecond() float64 { return float64(r.calls) / r.elapsed.Seconds() }

func (r *loadResult) percentile(p int) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(r.latencies))
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Millisecond)
}

const (
	loadWorkers    = 6
	loadIterations = 20
)

// load runs loadWorkers workers of loadIterations iterations each; url
// picks where worker w sends its calls. Confirmations go to the replica
// after the one that asked when there are several. midway, if not nil,
// runs once half of the iterations are done, while the load goes on.
func (f *fleet) load(t *testing.T, name string, url func(w int) string, midway func()) *loadResult {
	r := &loadResult{name: name, outcomes: map[string]int{}}
	var mu sync.Mutex
	record := func(d time.Duration, outcome, detail string) {
		mu.Lock()
		defer mu.Unlock()
		r.calls++
		r.latencies = append(r.latencies, d)
		r.outcomes[outcome]++
		if outcome == "undefined" {
			r.undefined = append(r.undefined, detail)
		}
	}
	call := func(url, tool string, args map[string]any, extra string) (map[string]any, string) {
		data, _ := json.Marshal(args)
		start := time.Now()
		res, outcome, detail := answer(mcphttp.Post(url, "", tool, mcphttp.Call(1, tool, string(data), extra)))
		record(time.Since(start), outcome, tool+": "+detail)
		return res, outcome
	}
	var done atomic.Int64
	var once sync.Once
	var wg sync.WaitGroup
	start := time.Now()
	for w := range loadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range loadIterations {
				if midway != nil && done.Add(1) == loadWorkers*loadIterations/2 {
					once.Do(func() { go midway() })
				}
				f.iteration(call, url(w), name, w, i)
			}
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	return r
}

// iteration is one step of a worker's mixed load.
func (f *fleet) iteration(call func(url, tool string, args map[string]any, extra string) (map[string]any, string), url, run string, w, i int) {
	ws := map[string]any{"workspace_id": "fx"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{"workspace_id": "fx"}
		for j := 0; j < len(kv); j += 2 {
			m[kv[j].(string)] = kv[j+1]
		}
		return m
	}
	switch i % 10 {
	case 0, 1, 2:
		call(url, "read_file", with("path", fmt.Sprintf("pkg%d/pkg.go", (w*7+i)%40)), "")
	case 3:
		call(url, "list_files", with("path", "", "recursive", true), "")
	case 4:
		call(url, "search_text", with("pattern", fmt.Sprintf("hello %d", i%40)), "")
	case 5:
		call(url, "search_symbol", with("query", fmt.Sprintf("Greet%d", i%40)), "")
	case 6:
		call(url, "repo_info", ws, "")
	default:
		branch := fmt.Sprintf("%s-%d-%d", run, w, i)
		if i%10 == 9 {
			branch = run + "-shared" // one shared branch: only the first apply may move it
		}
		gen, outcome := call(url, "generate_patch", with("edits", []map[string]any{
			{"op": "replace", "path": "README.md", "old_text": "read by peers", "new_text": "read by " + branch}}), "")
		p, _ := gen["structuredContent"].(map[string]any)
		if outcome != "ok" || p == nil {
			return
		}
		asker, answerer := url, url
		if run != "solo" { // ask one replica, answer through the next
			k := (w + i) % 3
			asker, answerer = f.replicaURL(k), f.replicaURL((k+1)%3)
		}
		apply := with("patch_id", p["patch_id"], "diff_sha256", p["diff_sha256"], "branch", branch)
		asked, outcome := call(asker, "apply_patch", apply, "")
		state, _ := asked["requestState"].(string)
		if outcome != "input_required" || state == "" {
			return
		}
		// An apply whose answer was cut may have moved the branch without
		// recording it (its replica died between the two writes). The
		// client does not retry: the apply's intent is settled by the
		// restarted replica, or by the next apply or repo_info, and
		// checkRepository holds every moved branch to its record.
		call(answerer, "apply_patch", apply, `"inputResponses":{"apply":{"action":"accept"}},"requestState":"`+state+`"`)
	}
}

func (f *fleet) replicaURL(k int) string { return fmt.Sprintf("http://127.0.0.1:%d/mcp", f.ports[k]) }

// answer classifies a reply: ok, input_required, an error class, an
// rpc_<code> error, cut (the connection failed: the client says so), an
// lb_<status> (HAProxy's own answer), or undefined.
func answer(resp *http.Response, body []byte, err error) (map[string]any, string, string) {
	if err != nil {
		return nil, "cut", err.Error()
	}
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return nil, "lb_" + strconv.Itoa(resp.StatusCode), ""
	}
	var msg struct {
		Result map[string]any
		Error  *struct{ Code int }
	}
	if json.Unmarshal(eventData(body), &msg) != nil {
		return nil, "undefined", resp.Status + " " + string(body)
	}
	switch {
	case msg.Error != nil:
		return nil, "rpc_" + strconv.Itoa(msg.Error.Code), ""
	case msg.Result == nil:
		return nil, "undefined", resp.Status + " " + string(body)
	case msg.Result["isError"] == true:
		meta, _ := msg.Result["_meta"].(map[string]any)
		e, _ := meta["io.github.repo-mcp/error"].(map[string]any)
		if class, _ := e["class"].(string); class != "" {
			return msg.Result, class, ""
		}
		return nil, "undefined", string(body)
	case msg.Result["requestState"] != nil:
		return msg.Result, "input_required", ""
	}
	return msg.Result, "ok", ""
}

// historyEvent is what the checks read of a patch history's events.
type historyEvent struct {
	Event     string `json:"event"`
	PatchID   string `json:"patch_id"`
	Branch    string `json:"branch"`
	Outcome   string `json:"outcome"`
	RequestID string `json:"request_id"`
}

// checkRepository compares the branches, the patches' histories and the
// replicas' audit logs.
func (f *fleet) checkRepository(t *testing.T) {
	git := func(args ...string) string { return gitfixture.Git(t, f.repo, args...) }
	branches := map[string]string{}
	for line := range strings.Lines(git("for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/")) {
		name, sha, _ := strings.Cut(strings.TrimSpace(line), " ")
		if strings.HasPrefix(name, "refs/heads/solo-") || strings.HasPrefix(name, "refs/heads/fleet-") {
			branches[name] = sha
		}
	}
	var events []historyEvent
	for ref := range strings.Lines(git("for-each-ref", "--format=%(refname)", "refs/repo-mcp/history/")) {
		log := git("log", "--format=%x00%b", strings.TrimSpace(ref))
		for body := range strings.SplitSeq(log, "\x00") {
			var e historyEvent
			if json.Unmarshal([]byte(strings.TrimSpace(body)), &e) == nil && e.Event == "apply" {
				events = append(events, e)
			}
		}
	}
	applied := map[string]int{} // by patch
	for _, e := range events {
		if e.Outcome == "applied" {
			applied[e.PatchID]++
		}
	}
	recorded := map[string]string{} // branch: the patch an apply record puts there
	for sha := range strings.Lines(git("for-each-ref", "--format=%(objectname)", "refs/repo-mcp/applied/")) {
		var r struct{ Target, Branch, Commit string }
		if err := json.Unmarshal([]byte(git("cat-file", "blob", strings.TrimSpace(sha))), &r); err != nil {
			t.Fatalf("apply record %s: %v", sha, err)
		}
		if r.Target == "branch" {
			recorded[r.Branch] = r.Commit
		}
	}
	if intents := git("for-each-ref", "refs/repo-mcp/intents/"); intents != "" {
		t.Logf("intents left (their replica died before the move):\n%s", intents)
	}
	for id, n := range applied {
		if n > 1 {
			t.Errorf("patch %s applied %d times", id, n)
		}
	}
	for name, sha := range branches {
		if recorded[name] != sha {
			t.Errorf("branch %s is at %s, but the recorded apply there is %q", name, sha, recorded[name])
		}
	}
	for name, id := range recorded {
		if branches[name] != id {
			t.Errorf("an apply of %s to %s is recorded, but the branch is at %q", id, name, branches[name])
		}
	}
	audited := map[string]string{} // request id: outcome, over the three replicas' audit logs
	for i := range 3 {
		data, err := os.ReadFile(filepath.Join(f.dir, fmt.Sprintf("audit-%d.jsonl", i)))
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			var a struct {
				RequestID string `json:"request_id"`
				Tool      string `json:"tool"`
				Outcome   string `json:"outcome"`
			}
			if json.Unmarshal([]byte(line), &a) == nil && a.Tool == "apply_patch" {
				audited[a.RequestID] = a.Outcome
			}
		}
	}
	unaudited := 0
	for _, e := range events {
		got, ok := audited[e.RequestID]
		want := e.Outcome
		if want == "applied" || want == "already_applied" {
			want = "ok"
		}
		switch {
		case !ok:
			unaudited++ // the replica was killed between the two writes
		case got != want:
			t.Errorf("apply %s: the history says %s, the audit line %s", e.RequestID, e.Outcome, got)
		}
	}
	if unaudited > loadWorkers {
		t.Errorf("%d recorded applies have no audit line; at most %d calls were in flight at the kill", unaudited, loadWorkers)
	}
	t.Logf("repository: %d branches moved, %d apply events recorded, %d of them without an audit line (in flight at the kill)", len(branches), len(events), unaudited)
}

// checkCache asks every replica, the restarted one included, the same
// searches: answered from the shared index cache, they must agree.
func (f *fleet) checkCache(t *testing.T) {
	for _, q := range []struct{ tool, args string }{
		{"search_symbol", `{"workspace_id":"fx","query":"Greet"}`},
		{"search_text", `{"workspace_id":"fx","pattern":"says hello"}`},
	} {
		var first string
		for k := range 3 {
			res, outcome, detail := answer(mcphttp.Post(f.replicaURL(k), "", q.tool, mcphttp.Call(1, q.tool, q.args, "")))
			if outcome != "ok" {
				t.Fatalf("replica %d, %s: %s %s", k, q.tool, outcome, detail)
			}
			out, _ := res["structuredContent"].(map[string]any)
			delete(out, "request_id")
			got, _ := json.Marshal(out)
			if !strings.Contains(string(got), "Greet39") {
				t.Errorf("replica %d, %s: Greet39 missing from %.300s", k, q.tool, got)
			}
			if k == 0 {
				first = string(got)
			} else if diff := cmp.Diff(first, string(got)); diff != "" {
				t.Errorf("replica %d answers %s differently from replica 0 (-0 +%d):\n%s", k, q.tool, k, diff)
			}
		}
	}
}
