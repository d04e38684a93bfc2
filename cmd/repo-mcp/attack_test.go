package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/mcphttp"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

// The tests in this file replay the attacks of the attack suite (issue 20)
// against the built binary, each one against what the server must do
// instead.

// stdioSession starts repo-mcp serve on stdio with args and connects the
// go-sdk client to it.
func stdioSession(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "attack", Version: "0"}, nil)
	cmd := exec.Command(repoMCP(t), append([]string{"serve", "--index-cache", "off"}, args...)...)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callText calls tool and returns the result's text, and its structured
// content decoded into out when out is not nil and the call succeeded.
func callText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if out != nil && !res.IsError {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	return text
}

// TestSecretFilesDenied reads secret files the default patterns used to
// miss; every one is permission_denied, and listings leave them out.
func TestSecretFilesDenied(t *testing.T) {
	secrets := []string{
		"prod.env", ".env-production", ".env.local", "kubeconfig", ".dockercfg", "AuthKey_X.p8",
		".cargo/credentials.toml", ".aws/config", "application_default_credentials.json",
		".azure/accessTokens.json", ".m2/settings.xml", "prod.auto.tfvars",
	}
	files := map[string]gitfixture.File{"environment.go": gitfixture.Text("package env\n")}
	for _, s := range secrets {
		files[s] = gitfixture.Text("token=secret\n")
	}
	repo := gitfixture.New(t)
	repo.Commit(t, "secrets", files)
	cs := stdioSession(t, "--workspace", "fx="+repo.Dir)
	for _, s := range secrets {
		if text := callText(t, cs, "read_file", map[string]any{"workspace_id": "fx", "path": s}, nil); !strings.HasPrefix(text, "permission_denied: ") {
			t.Errorf("read_file %s: %s", s, text)
		}
	}
	listing := callText(t, cs, "list_files", map[string]any{"workspace_id": "fx", "recursive": true}, nil)
	for _, s := range secrets {
		if strings.Contains(listing, s) {
			t.Errorf("list_files shows %s:\n%s", s, listing)
		}
	}
	if !strings.Contains(listing, "environment.go") {
		t.Errorf("list_files hides environment.go:\n%s", listing)
	}
}

// TestShallowRepository serves a shallow clone: repo_info works and says
// so, and a revision beyond the boundary is not_found naming it.
func TestShallowRepository(t *testing.T) {
	repo := gitfixture.New(t)
	for _, msg := range []string{"one", "two", "three"} {
		repo.Commit(t, msg, map[string]gitfixture.File{"f.txt": gitfixture.Text(msg + "\n")})
	}
	cs := stdioSession(t, "--workspace", "fx="+repo.ShallowClone(t, 1))
	var info struct {
		Shallow       bool `json:"shallow"`
		RecentCommits []struct {
			Subject string `json:"subject"`
		} `json:"recent_commits"`
	}
	text := callText(t, cs, "repo_info", map[string]any{"workspace_id": "fx"}, &info)
	if !info.Shallow || len(info.RecentCommits) != 1 || info.RecentCommits[0].Subject != "three" {
		t.Errorf("repo_info: %+v\n%s", info, text)
	}
	text = callText(t, cs, "read_file", map[string]any{"workspace_id": "fx", "path": "f.txt", "revision": "HEAD~1"}, nil)
	if !strings.HasPrefix(text, "not_found: ") || !strings.Contains(text, "shallow") {
		t.Errorf("read_file at HEAD~1: %s", text)
	}
}

// TestReadPastTheReadLimit reads a 100 MiB file by line: the server reads
// at most 16 MiB of it, and says so, rather than ending the file there.
func TestReadPastTheReadLimit(t *testing.T) {
	const lineBytes, lines = 100, 100 << 20 / 100 // 1,048,576 lines of 100 bytes
	var b strings.Builder
	b.Grow(lineBytes * lines)
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "%09d %s\n", i, strings.Repeat("x", lineBytes-11))
	}
	repo := gitfixture.New(t)
	repo.Commit(t, "big", map[string]gitfixture.File{"big.txt": gitfixture.Text(b.String())})
	cs := stdioSession(t, "--workspace", "fx="+repo.Dir)
	// 16 MiB hold 167,772 whole lines and 16 bytes of the next.
	const whole, limit = 16 << 20 / lineBytes, 16 << 20 / lineBytes * lineBytes
	var out struct {
		StartLine     int  `json:"start_line"`
		EndLine       int  `json:"end_line"`
		TotalLines    int  `json:"total_lines"`
		Truncated     bool `json:"truncated"`
		NextStartLine int  `json:"next_start_line"`
	}
	text := callText(t, cs, "read_file", map[string]any{"workspace_id": "fx", "path": "big.txt", "start_line": whole - 2}, &out)
	if out.StartLine != whole-2 || out.EndLine != whole || !out.Truncated || out.NextStartLine != whole+1 || out.TotalLines != -1 {
		t.Errorf("the lines before the limit: %+v\n%.300s", out, text)
	}
	if !strings.Contains(text, fmt.Sprintf("base64 from offset %d", limit)) {
		t.Errorf("the text does not say where the read limit is:\n%s", text[max(0, len(text)-400):])
	}
	for _, line := range []int{whole + 1, 500000} {
		text := callText(t, cs, "read_file", map[string]any{"workspace_id": "fx", "path": "big.txt", "start_line": line}, nil)
		if !strings.HasPrefix(text, fmt.Sprintf("invalid_input: start_line %d is past the read limit", line)) {
			t.Errorf("start_line %d: %s", line, text)
		}
	}
}

// TestSlowloris holds requests open by sending their bodies slowly to the
// binary on loopback: they count toward --max-calls-per-caller while they
// arrive, and --http-body-timeout ends them.
func TestSlowloris(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{"README.md": gitfixture.Text("hi\n")})
	url := peers.StartHTTP(t, repoMCP(t), "serve", "--http", "127.0.0.1:0", "--index-cache", "off",
		"--workspace", "fx="+repo.Dir, "--max-calls-per-caller", "2", "--http-body-timeout", "6s")
	call := mcphttp.Call(1, "repo_info", `{"workspace_id":"fx"}`, "")
	// A round can race with itself (see slowlorisRound); that is rare, so
	// a few rounds are enough.
	for round := 1; !slowlorisRound(t, url, call); round++ {
		if round == 3 {
			t.Fatalf("in %d rounds, a slow body was refused as over the quota each time", round)
		}
		t.Logf("round %d: a call overlapped the arrival of a slow body's headers; again", round)
	}
	if resp, body, err := mcphttp.Post(url, "", "repo_info", call); err != nil || resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"isError"`) {
		t.Errorf("a call after the slow bodies timed out: %v %v %s", resp, err, body)
	}
}

// slowlorisRound opens two slow bodies, then posts calls until one is
// refused as over the quota, and checks that the slow bodies time out. It
// reports false, having checked nothing, when a slow body was refused as
// over the quota itself: a call it posts can be in progress when the
// server reads the second slow body's headers (on a loaded machine that
// can come after the first calls), and that body is then rightly refused.
func slowlorisRound(t *testing.T, url, call string) bool {
	t.Helper()
	var slow []net.Conn
	for range 2 {
		conn, err := mcphttp.Trickle(url, "", "repo_info", call, 20)
		if err != nil {
			t.Fatal(err)
		}
		slow = append(slow, conn)
	}
	var resp *http.Response
	// Until the server has both slow bodies counted. On a loaded machine
	// that can take a second or more; the body timeout is well above it, so
	// the slow bodies are still counted when it happens.
	for range 4000 {
		var err error
		if resp, _, err = mcphttp.Post(url, "", "repo_info", call); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			break
		}
		time.Sleep(time.Millisecond)
	}
	var statuses []int
	for _, conn := range slow {
		resp, body, err := mcphttp.Wait(conn)
		if err != nil {
			t.Fatalf("a slow body: %v %s", err, body)
		}
		statuses = append(statuses, resp.StatusCode)
	}
	if slices.Contains(statuses, http.StatusTooManyRequests) {
		return false
	}
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("a call beside two slow bodies: %s", resp.Status)
	}
	for _, status := range statuses {
		if status != http.StatusRequestTimeout {
			t.Errorf("a slow body: %d, want %d", status, http.StatusRequestTimeout)
		}
	}
	return true
}

// TestAnswerCountsOnce answers apply_patch's question with decline through
// one replica and then with accept, the same requestState, through the
// other: the accept is refused and nothing is applied. A branch named HEAD
// is refused before any question.
func TestAnswerCountsOnce(t *testing.T) {
	serve, key, repoDir := replicas(t)
	a, b := serve("--state-key-file", key), serve("--state-key-file", key)
	p := proposeHTTP(t, a, `"hello, twice"`)
	type answer struct {
		Result struct {
			IsError      bool   `json:"isError"`
			RequestState string `json:"requestState"`
			Content      []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	apply := map[string]any{"workspace_id": "fx", "patch_id": p.PatchID, "diff_sha256": p.DiffSHA256, "branch": "HEAD"}
	var head answer
	callHTTP(t, a, "apply_patch", apply, "", &head)
	if !head.Result.IsError || !strings.HasPrefix(head.Result.Content[0].Text, "invalid_input: branch name \"HEAD\" is not allowed") {
		t.Errorf("branch HEAD: %+v", head)
	}
	apply["branch"] = "twice"
	var asked answer
	callHTTP(t, a, "apply_patch", apply, "", &asked)
	if asked.Result.RequestState == "" {
		t.Fatalf("apply_patch did not ask: %+v", asked)
	}
	reply := func(action string) string {
		return `"inputResponses":{"apply":{"action":"` + action + `"}},"requestState":"` + asked.Result.RequestState + `"`
	}
	var declined, accepted answer
	callHTTP(t, b, "apply_patch", apply, reply("decline"), &declined)
	if !declined.Result.IsError || !strings.Contains(declined.Result.Content[0].Text, "did not confirm") {
		t.Errorf("decline: %+v", declined)
	}
	callHTTP(t, a, "apply_patch", apply, reply("accept"), &accepted)
	if !accepted.Result.IsError || !strings.HasPrefix(accepted.Result.Content[0].Text, "permission_denied: ") ||
		!strings.Contains(accepted.Result.Content[0].Text, "answered already (decline)") {
		t.Errorf("accept after decline: %+v", accepted)
	}
	refs := gitfixture.Git(t, repoDir, "for-each-ref", "--format=%(refname)", "refs/heads/", "refs/repo-mcp/applied/")
	if strings.Contains(refs, "twice") || strings.Contains(refs, "HEAD") || strings.Contains(refs, "applied") {
		t.Errorf("something was applied:\n%s", refs)
	}
}

// TestProposalFlood makes 400 proposals and 300 failed applies as one
// caller: the quotas (100 each, the defaults) stop both, so the refs they
// leave stay bounded, and the calls over a quota say which it is.
func TestProposalFlood(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{"main.go": gitfixture.Text("package main\n")})
	cs := stdioSession(t, "--workspace", "fx="+repo.Dir)
	type generated struct {
		PatchID    string `json:"patch_id"`
		DiffSHA256 string `json:"diff_sha256"`
	}
	var first generated
	refused := 0
	for i := range 400 {
		var g generated
		text := callText(t, cs, "generate_patch", map[string]any{"workspace_id": "fx", "edits": []map[string]any{
			{"op": "write", "path": fmt.Sprintf("flood%d.txt", i), "content": "x\n"},
		}}, &g)
		switch {
		case strings.HasPrefix(text, "permission_denied: ") && strings.Contains(text, "100 open proposals"):
			refused++
		case g.PatchID == "":
			t.Fatalf("proposal %d: %s", i, text)
		case i == 0:
			first = g
		}
	}
	failedRefused := 0
	for range 300 {
		text := callText(t, cs, "apply_patch", map[string]any{"workspace_id": "fx", "patch_id": first.PatchID, "diff_sha256": strings.Repeat("0", 64)}, nil)
		if strings.Contains(text, "100 failed applies") {
			failedRefused++
		}
	}
	if refused != 300 || failedRefused != 200 {
		t.Errorf("refused %d proposals and %d applies, want 300 and 200", refused, failedRefused)
	}
	counts := map[string]int{}
	for ref := range strings.Lines(gitfixture.Git(t, repo.Dir, "for-each-ref", "--format=%(refname)", "refs/repo-mcp/")) {
		kind := strings.Split(ref, "/")[2]
		counts[kind]++
	}
	if counts["patches"] != 100 || counts["history"] != 100 || counts["failed"] != 1 || len(counts) != 3 {
		t.Errorf("refs under refs/repo-mcp/: %v", counts)
	}
	events := gitfixture.Git(t, repo.Dir, "rev-list", "--count", "refs/repo-mcp/history/"+first.PatchID)
	if strings.TrimSpace(events) != "101" { // proposed, and 100 failures
		t.Errorf("the first patch's history holds %s events", events)
	}
}
