package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
	"github.com/repo-mcp/repo-mcp/internal/mcphttp"
	"github.com/repo-mcp/repo-mcp/internal/oauthtest"
	"github.com/repo-mcp/repo-mcp/internal/peers"
)

// TestHTTPTokens serves a workspace over HTTP to two identities with
// tokens made by repo-mcp token, and calls it with go-sdk's client: each
// call is made for its token's identity, under that identity's policy, and
// a request without a good token is refused.
func TestHTTPTokens(t *testing.T) {
	root, _ := fixtureRepo(t)
	alice, aliceEntry := makeToken(t, "alice")
	bob, bobEntry := makeToken(t, "bob")
	carol, carolEntry := makeToken(t, "carol")
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	audit := filepath.Join(dir, "audit.jsonl")
	writeFile(t, config, fmt.Sprintf(`workspaces:
  - id: fx
    root: %q
policies:
  - identity: alice
    workspaces: [fx]
    actions: [read]
  - identity: bob
    workspaces: [fx]
    actions: [read]
    deny: ["src/**"]
  - identity: local
    workspaces: [fx]
    actions: [read]
tokens:
%s%s%s    expires: 2020-01-01
`, root, aliceEntry, bobEntry, carolEntry))
	url := peers.StartHTTP(t, repoMCP(t), "serve", "--http", "127.0.0.1:0", "--index-cache", "off", "--config", config, "--audit-log", audit,
		"--allowed-host", "repo.example")

	ctx := context.Background()
	connect := func(token string) (*mcp.ClientSession, error) {
		transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(token)}}
		return mcp.NewClient(&mcp.Implementation{Name: "token-test", Version: "0"}, nil).Connect(ctx, transport, nil)
	}
	read := func(cs *mcp.ClientSession, path string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"workspace_id": "fx", "path": path}})
		if err != nil {
			t.Fatalf("read_file %s: %v", path, err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	for _, tt := range []struct {
		name, token, path, want string
	}{
		{"alice reads src", alice, "src/main.go", "func Greet"},
		{"bob reads the README", bob, "README.md", "read by peers"},
		{"bob's policy denies src", bob, "src/main.go", "permission_denied: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := connect(tt.token)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := read(cs, tt.path); !strings.Contains(got, tt.want) {
				t.Errorf("read_file %s: %s", tt.path, got)
			}
		})
	}
	for _, tt := range []struct{ name, token string }{
		{"no token", ""}, {"unknown token", "rmcp_guess"}, {"expired token", carol}, {"a token's digest", strings.Fields(aliceEntry)[4]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if cs, err := connect(tt.token); err == nil {
				cs.Close()
				t.Fatal("connected")
			}
		})
	}
	for _, tt := range []struct {
		host, token string
		want        int
	}{
		{"repo.example", alice, http.StatusMethodNotAllowed}, // past the Host and token checks
		{"repo.example", "", http.StatusUnauthorized},
		{"evil.example", alice, http.StatusForbidden},
	} {
		t.Run("Host "+tt.host, func(t *testing.T) {
			req, _ := http.NewRequest("GET", url, nil)
			req.Host = tt.host
			resp, err := (&http.Client{Transport: bearer(tt.token)}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("GET with Host %s: %s, want %d", tt.host, resp.Status, tt.want)
			}
		})
	}
	t.Run("health", func(t *testing.T) {
		resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "ok\n" {
			t.Errorf("GET /healthz: %s %q", resp.Status, body)
		}
	})
	log, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"caller":"alice"`, `"caller":"bob"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("audit lacks %s:\n%s", want, log)
		}
	}
	for _, unwanted := range []string{`"caller":"local"`, `"caller":"carol"`, alice, bob} {
		if strings.Contains(string(log), unwanted) {
			t.Errorf("audit holds %s:\n%s", unwanted, log)
		}
	}
}

// makeToken runs repo-mcp token and returns the token and the YAML list
// item it prints.
func makeToken(t *testing.T, identity string) (token, entry string) {
	out, err := exec.Command(repoMCP(t), "token", identity).Output()
	if err != nil {
		t.Fatalf("repo-mcp token %s: %v", identity, err)
	}
	m := regexp.MustCompile(`(?s)^(rmcp_[A-Za-z0-9_-]{43})\n.*\ntokens:\n((?:  .*\n)+)$`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("repo-mcp token %s printed:\n%s", identity, out)
	}
	return m[1], m[2]
}

// bearer sends its token with every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b != "" {
		r.Header.Set("Authorization", "Bearer "+string(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestHTTPOAuth serves a workspace to callers with access tokens from an
// OAuth issuer, beside a token of repo-mcp's own, and calls it with
// go-sdk's client.
func TestHTTPOAuth(t *testing.T) {
	root, _ := fixtureRepo(t)
	issuer := oauthtest.NewIssuer(t, "/realms/eng", false)
	issuer.NewKey(t, "k1")
	bob, bobEntry := makeToken(t, "bob")
	const resource = "https://repo.example/mcp"
	config := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, config, fmt.Sprintf(`workspaces:
  - id: fx
    root: %q
policies:
  - identity: alice@example.com
    workspaces: [fx]
    actions: [read]
  - identity: bob
    workspaces: [fx]
    actions: [read]
tokens:
%soauth:
  resource: %s
  issuer: %s
  identity_claim: email
  scopes: [repo]
`, root, bobEntry, resource, issuer.Issuer()))
	url := peers.StartHTTP(t, repoMCP(t), "serve", "--http", "127.0.0.1:0", "--index-cache", "off", "--config", config)

	accessToken := func(edit func(jwt.MapClaims)) string {
		claims := jwt.MapClaims{"iss": issuer.Issuer(), "aud": resource, "sub": "u-1", "email": "alice@example.com",
			"scope": "repo", "exp": time.Now().Add(time.Hour).Unix()}
		if edit != nil {
			edit(claims)
		}
		return issuer.Sign(t, jwt.SigningMethodES256, "k1", claims)
	}
	ctx := context.Background()
	for _, tt := range []struct {
		name, token string
		ok          bool
	}{
		{"alice's access token", accessToken(nil), true},
		{"bob's own token", bob, true},
		{"a token for another server", accessToken(func(c jwt.MapClaims) { c["aud"] = "https://other.example/mcp" }), false},
		{"a token without the scope", accessToken(func(c jwt.MapClaims) { delete(c, "scope") }), false},
		{"an expired token", accessToken(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(tt.token)}}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "0"}, nil).Connect(ctx, transport, nil)
			if !tt.ok {
				if err == nil {
					cs.Close()
					t.Fatal("connected")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"workspace_id": "fx", "path": "README.md"}})
			if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "read by peers") {
				t.Fatalf("read_file: %v %+v", err, res)
			}
		})
	}

	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	metadataURL := "https://repo.example/.well-known/oauth-protected-resource/mcp"
	if challenge := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.Contains(challenge, metadataURL) {
		t.Errorf("without a token: %s, challenge %q", resp.Status, challenge)
	}
	resp, err = http.Get(strings.TrimSuffix(url, "/mcp") + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&meta); err != nil || meta.Resource != resource || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != issuer.Issuer() {
		t.Errorf("protected resource metadata: %+v, %v", meta, err)
	}
}

// TestOAuthFlow runs the MCP authorization flow end to end with go-sdk's
// client: refused without a token, it reads the protected resource
// metadata, finds the issuer, gets a code with PKCE for repo-mcp's URL,
// exchanges it, and calls read_file as the user the issuer names.
func TestOAuthFlow(t *testing.T) {
	root, _ := fixtureRepo(t)
	issuer := oauthtest.NewIssuer(t, "", false)
	issuer.NewKey(t, "k1")
	issuer.ApproveAs("k1", jwt.MapClaims{"sub": "u-1", "email": "alice@example.com"})
	// The resource URL is where the client connects, so the port is chosen
	// before the server starts.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	resource := "http://" + addr + "/mcp"
	dir := t.TempDir()
	config, audit := filepath.Join(dir, "config.yaml"), filepath.Join(dir, "audit.jsonl")
	writeFile(t, config, fmt.Sprintf(`workspaces:
  - id: fx
    root: %q
policies:
  - identity: alice@example.com
    workspaces: [fx]
    actions: [read]
oauth:
  resource: %s
  issuer: %s
  identity_claim: email
  scopes: [repo]
`, root, resource, issuer.Issuer()))
	peers.StartHTTP(t, repoMCP(t), "serve", "--http", addr, "--index-cache", "off", "--config", config, "--audit-log", audit)

	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		PreregisteredClient: &oauthex.ClientCredentials{ClientID: oauthtest.ClientID},
		RedirectURL:         "http://127.0.0.1/callback",
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			resp, err := noRedirects.Get(args.URL) // the person approves at once
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			back, err := neturl.Parse(resp.Header.Get("Location"))
			if err != nil {
				return nil, err
			}
			return &auth.AuthorizationResult{Code: back.Query().Get("code"), State: back.Query().Get("state")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	transport := &mcp.StreamableClientTransport{Endpoint: resource, OAuthHandler: handler}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "oauth-flow", Version: "0"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"workspace_id": "fx", "path": "README.md"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "read by peers") {
		t.Fatalf("read_file: %v %+v", err, res)
	}
	if log, err := os.ReadFile(audit); err != nil || !strings.Contains(string(log), `"caller":"alice@example.com"`) {
		t.Errorf("audit does not name the user (%v):\n%s", err, log)
	}
}

// TestReplicasShareQuestions serves one repository from two replicas with
// the same --state-key-file and a third without it: apply_patch's question
// asked by one replica is answered through the other, as behind a load
// balancer, and the third refuses the answer.
func TestReplicasShareQuestions(t *testing.T) {
	serve, key, _ := replicas(t)
	a, b, other := serve("--state-key-file", key), serve("--state-key-file", key), serve()
	p := proposeHTTP(t, a, `"hello, replicas"`)
	apply := map[string]any{"workspace_id": "fx", "patch_id": p.PatchID, "diff_sha256": p.DiffSHA256}
	var asked struct {
		Result struct {
			ResultType   string `json:"resultType"`
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	callHTTP(t, a, "apply_patch", apply, "", &asked)
	if asked.Result.ResultType != "input_required" || asked.Result.RequestState == "" {
		t.Fatalf("apply_patch did not ask: %+v", asked)
	}
	answer := `"inputResponses":{"apply":{"action":"accept"}},"requestState":"` + asked.Result.RequestState + `"`
	var refused, applied struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	callHTTP(t, other, "apply_patch", apply, answer, &refused)
	if !refused.Result.IsError || !strings.Contains(refused.Result.Content[0].Text, "requestState is not one") {
		t.Errorf("a replica with another key took the answer: %+v", refused)
	}
	callHTTP(t, b, "apply_patch", apply, answer, &applied)
	if applied.Result.IsError {
		t.Errorf("the replica sharing the key refused the answer: %+v", applied)
	}
}

// replicas makes a repository with main.go, and a config and a state key
// for replicas serving it; serve starts one with extra flags and returns
// its URL.
func replicas(t *testing.T) (serve func(extra ...string) string, key, repoDir string) {
	repo := gitfixture.New(t)
	repo.Commit(t, "first", map[string]gitfixture.File{"main.go": gitfixture.Text("package main\n\nfunc main() { println(\"hello\") }\n")})
	dir := t.TempDir()
	config, key := filepath.Join(dir, "repo-mcp.yaml"), filepath.Join(dir, "state.key")
	writeFile(t, config, fmt.Sprintf("workspaces:\n  - id: fx\n    root: %q\n", repo.Dir))
	writeFile(t, key, "0123456789abcdef0123456789abcdef0123456789abcdef\n")
	serve = func(extra ...string) string {
		return peers.StartHTTP(t, repoMCP(t), append([]string{"serve", "--http", "127.0.0.1:0", "--index-cache", "off", "--config", config}, extra...)...)
	}
	return serve, key, repo.Dir
}

// proposal is what a test needs of generate_patch's result.
type proposal struct {
	PatchID    string `json:"patch_id"`
	DiffSHA256 string `json:"diff_sha256"`
}

// proposeHTTP proposes, through the server at url, to replace main.go's
// "hello" by replacement.
func proposeHTTP(t *testing.T, url, replacement string) proposal {
	var gen struct {
		Result struct {
			StructuredContent proposal `json:"structuredContent"`
		} `json:"result"`
	}
	callHTTP(t, url, "generate_patch", map[string]any{"workspace_id": "fx", "edits": []map[string]any{
		{"op": "replace", "path": "main.go", "old_text": `"hello"`, "new_text": replacement},
	}}, "", &gen)
	return gen.Result.StructuredContent
}

// callHTTP calls tool over Streamable HTTP at 2026-07-28, from a client
// that can be asked, with extra members in the params, and decodes the
// JSON-RPC response into out.
func callHTTP(t *testing.T, url, tool string, args map[string]any, extra string, out any) {
	t.Helper()
	data, _ := json.Marshal(args)
	resp, body, err := mcphttp.Post(url, "", tool, mcphttp.Call(1, tool, string(data), extra))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || json.Unmarshal(body, out) != nil {
		t.Fatalf("%s: %s %s", tool, resp.Status, body)
	}
}
