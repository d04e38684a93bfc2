package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/repo-mcp/repo-mcp/internal/mcphttp"
	"github.com/repo-mcp/repo-mcp/internal/oauthtest"
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/server/oauth"
)

const resource = "https://repo.example/mcp"

func TestVerify(t *testing.T) {
	is := oauthtest.NewIssuer(t, "/realms/eng", false)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	unpublished, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	is.AddKey("ec", ecKey, true)
	is.AddKey("rsa", rsaKey, true)
	is.AddKey("ed", edKey, true)
	is.AddKey("secret", unpublished, false)
	rs, err := oauth.New(context.Background(), oauth.Config{Resource: resource, Issuer: is.Issuer(), KeyRefresh: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{"iss": is.Issuer(), "aud": resource, "sub": "alice", "exp": now.Add(time.Hour).Unix(), "scope": "repo read"}
		if edit != nil {
			edit(c)
		}
		return c
	}
	rsaPublic, _ := x509.MarshalPKIXPublicKey(rsaKey.Public())
	hmacWithPublicKey, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims(nil)).SignedString(rsaPublic)
	good := is.Sign(t, jwt.SigningMethodES256, "ec", claims(nil))
	parts := strings.Split(good, ".")
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(`{"iss":"`+is.Issuer()+`","aud":"`+resource+`","sub":"root","exp":9999999999}`)) + "." + parts[2]

	for _, tt := range []struct {
		name, token string
		wantUser    string // empty: refused
	}{
		{"ES256", good, "alice"},
		{"RS256", is.Sign(t, jwt.SigningMethodRS256, "rsa", claims(nil)), "alice"},
		{"EdDSA", is.Sign(t, jwt.SigningMethodEdDSA, "ed", claims(nil)), "alice"},
		{"audience list with trailing slash", is.Sign(t, jwt.SigningMethodES256, "ec", claims(func(c jwt.MapClaims) { c["aud"] = []string{"other", resource + "/"} })), "alice"},
		{"another audience", is.Sign(t, jwt.SigningMethodES256, "ec", claims(func(c jwt.MapClaims) { c["aud"] = "https://other.example/mcp" })), ""},
		{"no audience", is.Sign(t, jwt.SigningMethodES256, "ec", claims(func(c jwt.MapClaims) { delete(c, "aud") })), ""},
		{"another issuer", is.Sign(t, jwt.SigningMethodES256, "ec", claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" })), ""},
		{"expired", is.Sign(t, jwt.SigningMethodES256, "ec", claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Hour).Unix() })), ""},
		{"no expiry", is.Sign(t, jwt.SigningMethodES256, "ec", claims(func(c jwt.MapClaims) { delete(c, "exp") })), ""},
		{"not yet valid", is.Sign(t, jwt.SigningMethodES256, "ec", claims(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() })), ""},
		{"no subject", is.Sign(t, jwt.SigningMethodES256, "ec", claims(func(c jwt.MapClaims) { delete(c, "sub") })), ""},
		{"key the issuer does not publish", is.Sign(t, jwt.SigningMethodES256, "secret", claims(nil)), ""},
		{"EC key named in an RSA token", rekid(is.Sign(t, jwt.SigningMethodRS256, "rsa", claims(nil)), "ec"), ""},
		{"HMAC keyed with the public key", hmacWithPublicKey, ""},
		{"alg none", unsigned(claims(nil)), ""},
		{"tampered payload", tampered, ""},
		{"not a JWT", "rmcp_abc", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			info, err := rs.Verify(context.Background(), tt.token, nil)
			if tt.wantUser == "" {
				if err == nil || !errors.Is(err, auth.ErrInvalidToken) {
					t.Fatalf("accepted, or refused without ErrInvalidToken: %+v, %v", info, err)
				}
				return
			}
			if err != nil || info.UserID != tt.wantUser || info.Expiration.IsZero() || strings.Join(info.Scopes, " ") != "repo read" {
				t.Fatalf("got %+v, %v", info, err)
			}
		})
	}
	if hits := is.JWKSHits.Load(); hits != 1 {
		t.Errorf("the key set was fetched %d times; an unknown key must not refetch it within KeyRefresh", hits)
	}
}

// rekid returns token with its header's kid replaced (the signature then
// still belongs to the original key).
func rekid(token, kid string) string {
	parts := strings.Split(token, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	var h map[string]any
	json.Unmarshal(header, &h)
	h["kid"] = kid
	header, _ = json.Marshal(h)
	return base64.RawURLEncoding.EncodeToString(header) + "." + parts[1] + "." + parts[2]
}

func unsigned(claims jwt.MapClaims) string {
	s, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claims).SignedString(jwt.UnsafeAllowNoneSignatureType)
	return s
}

// TestKeyRotation checks that a token signed with a key published after
// New is accepted once the set may be fetched again.
func TestKeyRotation(t *testing.T) {
	is := oauthtest.NewIssuer(t, "", true) // OpenID Connect discovery only
	is.NewKey(t, "old")
	rs, err := oauth.New(context.Background(), oauth.Config{Resource: resource, Issuer: is.Issuer(), KeyRefresh: time.Nanosecond, IdentityClaim: "email"})
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	is.AddKey("new", fresh, true)
	tok := is.Sign(t, jwt.SigningMethodES384, "new", jwt.MapClaims{"iss": is.Issuer(), "aud": resource, "email": "bob@example.com", "exp": time.Now().Add(time.Minute).Unix()})
	info, err := rs.Verify(context.Background(), tok, nil)
	if err != nil || info.UserID != "bob@example.com" {
		t.Fatalf("rotated key: %+v, %v", info, err)
	}
}

func TestNewRefuses(t *testing.T) {
	is := oauthtest.NewIssuer(t, "", false)
	is.NewKey(t, "k")
	empty := oauthtest.NewIssuer(t, "", false)
	for _, cfg := range []oauth.Config{
		{Resource: "http://repo.example/mcp", Issuer: is.Issuer()}, // plain HTTP beyond loopback
		{Resource: "http://127.evil.example/mcp", Issuer: is.Issuer()},
		{Resource: resource + "#x", Issuer: is.Issuer()},
		{Resource: "repo.example/mcp", Issuer: is.Issuer()},
		{Resource: resource, Issuer: is.Issuer() + "/nowhere"},
		{Resource: resource, Issuer: empty.Issuer()}, // no usable key
		{Resource: resource, Issuer: is.Issuer(), JWKSURL: "https://user:pw@keys.example/jwks"},
	} {
		if _, err := oauth.New(context.Background(), cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}

// TestThroughHTTPHandler checks the resource server in place: refusals
// point at the metadata, which names the issuer, and a token's subject is
// the caller of its calls.
func TestThroughHTTPHandler(t *testing.T) {
	is := oauthtest.NewIssuer(t, "", false)
	is.NewKey(t, "k")
	rs, err := oauth.New(context.Background(), oauth.Config{Resource: resource, Issuer: is.Issuer(), Scopes: []string{"repo"}})
	if err != nil {
		t.Fatal(err)
	}
	s := server.New(server.Info{Name: "t", Version: "0"}, server.Options{Logger: slog.New(slog.DiscardHandler), Audit: io.Discard})
	type whoOut struct {
		Caller string `json:"caller"`
	}
	server.MustRegister(s, server.Tool{Name: "who", Description: "Says who calls.", Effect: server.ReadOnly},
		func(_ context.Context, req *server.Request, _ struct{}) (whoOut, error) {
			return whoOut{req.Caller}, nil
		})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.HTTPHandler(server.HTTPOptions{Auth: rs.BearerAuth()}))
	for _, p := range rs.MetadataPaths() {
		mux.Handle(p, rs.MetadataHandler())
	}
	ts := httptest.NewServer(mux)
	defer ts.Close()

	for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(ts.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Resource             string   `json:"resource"`
			AuthorizationServers []string `json:"authorization_servers"`
		}
		json.NewDecoder(resp.Body).Decode(&meta)
		resp.Body.Close()
		if meta.Resource != resource || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != is.Issuer() {
			t.Errorf("GET %s: %+v", p, meta)
		}
	}

	call := func(token string) (*http.Response, string) {
		authorization := ""
		if token != "" {
			authorization = "Bearer " + token
		}
		resp, out, err := mcphttp.Post(ts.URL+"/mcp", authorization, "who", mcphttp.Call(1, "who", `{}`, ""))
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(out)
	}
	resp, _ := call("")
	if challenge := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 ||
		!strings.Contains(challenge, `resource_metadata="https://repo.example/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("no token: %s, challenge %q", resp.Status, challenge)
	}
	claims := jwt.MapClaims{"iss": is.Issuer(), "aud": resource, "sub": "alice", "exp": time.Now().Add(time.Minute).Unix()}
	if resp, _ := call(is.Sign(t, jwt.SigningMethodES256, "k", claims)); resp.StatusCode != 403 ||
		resp.Header.Get("WWW-Authenticate") != `Bearer error="insufficient_scope", resource_metadata="https://repo.example/.well-known/oauth-protected-resource/mcp", scope="repo"` {
		t.Errorf("token without the required scope: %s, challenge %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	if resp, _ := call("not-a-token"); resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), `Bearer error="invalid_token", resource_metadata=`) {
		t.Errorf("bad token: %s, challenge %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	claims["scope"] = "repo"
	if resp, body := call(is.Sign(t, jwt.SigningMethodES256, "k", claims)); resp.StatusCode != 200 || !strings.Contains(body, `"caller":"alice"`) {
		t.Errorf("good token: %s %s", resp.Status, body)
	}
}
