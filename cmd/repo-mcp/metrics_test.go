package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/repo-mcp/repo-mcp/internal/mcphttp"
)

// TestMetricsScrape serves a workspace with --metrics-addr, makes happen
// every event the metrics count (calls that succeed and fail, a policy
// refusal, a token refusal, symbol and text index builds, an index loaded
// from the disk cache by a second process, an apply confirmed by the
// person), then scrapes /metrics: each metric has exactly its label
// names, every label value is from a bounded set, and each event shows.
func TestMetricsScrape(t *testing.T) {
	root, _ := fixtureRepo(t)
	alice, aliceEntry := makeToken(t, "alice")
	bob, bobEntry := makeToken(t, "bob")
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	writeFile(t, config, fmt.Sprintf(`workspaces:
  - id: fx
    root: %q
policies:
  - identity: alice
    workspaces: [fx]
    actions: [read, search, propose, apply]
  - identity: bob
    workspaces: [fx]
    actions: [read]
    deny: ["src/**"]
tokens:
%s%s`, root, aliceEntry, bobEntry))
	args := []string{"serve", "--http", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--config", config, "--index-cache", filepath.Join(dir, "cache")}
	r := startReplica(t, args...)

	call := func(token, tool string, in map[string]any, extra string) map[string]any {
		t.Helper()
		data, _ := json.Marshal(in)
		resp, body, err := mcphttp.Post(r.url, "Bearer "+token, tool, mcphttp.Call(1, tool, string(data), extra))
		if err != nil {
			t.Fatal(err)
		}
		var out struct{ Result map[string]any }
		if resp.StatusCode != 200 || json.Unmarshal(body, &out) != nil {
			t.Fatalf("%s: %s %s", tool, resp.Status, body)
		}
		return out.Result
	}
	call(alice, "read_file", map[string]any{"workspace_id": "fx", "path": "README.md"}, "")
	call(bob, "read_file", map[string]any{"workspace_id": "fx", "path": "src/main.go"}, "") // refused by policy
	call(alice, "read_file", map[string]any{"workspace_id": "fx", "path": "nope.md"}, "")   // not_found
	call(alice, "search_symbol", map[string]any{"workspace_id": "fx", "query": "Greet"}, "")
	call(alice, "search_text", map[string]any{"workspace_id": "fx", "pattern": "hello"}, "")
	gen := call(alice, "generate_patch", map[string]any{"workspace_id": "fx", "edits": []map[string]any{
		{"op": "replace", "path": "README.md", "old_text": "read by peers", "new_text": "read by scrapers"}}}, "")
	p, _ := gen["structuredContent"].(map[string]any)
	apply := map[string]any{"workspace_id": "fx", "patch_id": p["patch_id"], "diff_sha256": p["diff_sha256"], "branch": "scraped"}
	asked := call(alice, "apply_patch", apply, "")
	state, _ := asked["requestState"].(string)
	if state == "" {
		t.Fatalf("apply_patch did not ask: %v", asked)
	}
	call(alice, "apply_patch", apply, `"inputResponses":{"apply":{"action":"accept"}},"requestState":"`+state+`"`)
	if resp, _, err := mcphttp.Post(r.url, "Bearer rmcp_guess", "read_file", mcphttp.Call(1, "read_file", `{}`, "")); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a bad token: %v %v", resp, err)
	}
	// A second process with the same index cache loads the symbol index.
	second := startReplica(t, args...)
	data, _ := json.Marshal(map[string]any{"workspace_id": "fx", "query": "Greet"})
	mcphttp.Post(second.url, "Bearer "+alice, "search_symbol", mcphttp.Call(1, "search_symbol", string(data), ""))

	want := map[string][]string{ // metric: its label names
		"repo_mcp_calls_total":             {"effect", "outcome", "tool"},
		"repo_mcp_call_duration_seconds":   {"tool"},
		"repo_mcp_calls_in_flight":         {"caller"},
		"repo_mcp_refusals_total":          {"reason"},
		"repo_mcp_index_builds_total":      {"index"},
		"repo_mcp_index_build_seconds":     {"index"},
		"repo_mcp_index_build_bytes_total": {"index"},
		"repo_mcp_applies_total":           {"outcome", "target"},
	}
	bounded := map[string][]string{
		"tool":    {"apply_patch", "generate_patch", "read_file", "search_symbol", "search_text"},
		"effect":  {"read_only", "write", "destructive"},
		"outcome": {"ok", "invalid_input", "permission_denied", "not_found", "precondition_failed", "transient", "internal", "applied", "input_required"},
		"caller":  {"alice", "bob", "local", "other"},
		"reason":  {"auth", "token"},
		"index":   {"symbol", "text"},
		"target":  {"branch"},
	}
	wantSeries := []string{
		`repo_mcp_calls_total{effect="read_only",outcome="ok",tool="read_file"}`,
		`repo_mcp_calls_total{effect="read_only",outcome="permission_denied",tool="read_file"}`,
		`repo_mcp_calls_total{effect="read_only",outcome="not_found",tool="read_file"}`,
		`repo_mcp_calls_total{effect="destructive",outcome="ok",tool="apply_patch"}`,
		`repo_mcp_refusals_total{reason="auth"}`,
		`repo_mcp_refusals_total{reason="token"}`,
		`repo_mcp_index_builds_total{index="symbol"}`,
		`repo_mcp_index_builds_total{index="text"}`,
		`repo_mcp_index_build_bytes_total{index="text"}`,
		`repo_mcp_applies_total{outcome="applied",target="branch"}`,
		`repo_mcp_applies_total{outcome="input_required",target="branch"}`,
	}
	// The text index builds in the background: scrape until it shows.
	var families map[string]*dto.MetricFamily
	var missing []string
	for range 100 {
		families = scrape(t, r.metrics)
		if missing = absent(families, wantSeries); len(missing) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(missing) > 0 {
		t.Errorf("series missing or zero: %v", missing)
	}
	for name, labels := range want {
		f := families[name]
		if f == nil {
			t.Errorf("no metric %s", name)
			continue
		}
		for _, m := range f.Metric {
			var names []string
			for _, l := range m.Label {
				names = append(names, l.GetName())
				if !slices.Contains(bounded[l.GetName()], l.GetValue()) {
					t.Errorf("%s: label %s=%q is not in its bounded set", name, l.GetName(), l.GetValue())
				}
			}
			if diff := cmp.Diff(labels, names); diff != "" {
				t.Errorf("%s label names (-want +got):\n%s", name, diff)
			}
		}
	}
	if hits := absent(scrape(t, second.metrics), []string{`repo_mcp_index_cache_hits_total{index="symbol"}`}); len(hits) > 0 {
		t.Errorf("the second process shows no symbol index loaded from the cache")
	}
}

// scrape reads the metrics at url.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return families
}

// absent returns the series (name{labels} in label order) with no
// positive value among families.
func absent(families map[string]*dto.MetricFamily, series []string) []string {
	var out []string
	for _, s := range series {
		name, labels, _ := strings.Cut(s, "{")
		found := false
		for _, m := range families[name].GetMetric() {
			var ls []string
			for _, l := range m.Label {
				ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
			if strings.Join(ls, ",")+"}" == labels && v > 0 {
				found = true
			}
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}
