// Package oauthtest is an OAuth authorization server for tests of
// resource servers.
package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Issuer is an authorization server as far as a resource server sees
// one: metadata (RFC 8414 or OpenID Connect discovery), a key set, and
// tokens signed with its keys. It issues tokens to tests directly: there
// is no authorization flow.
type Issuer struct {
	*httptest.Server
	path     string       // of the issuer URL
	oidcOnly bool         // serve OpenID Connect discovery, not RFC 8414
	JWKSHits atomic.Int32 // fetches of the key set

	mu        sync.Mutex
	keys      map[string]crypto.Signer
	published map[string]bool
	flowKey   string        // signs the tokens of the authorization flow
	user      jwt.MapClaims // who approves every authorization
	codes     map[string]grant
}

// grant is an authorization code's request, kept until the code is used.
type grant struct {
	challenge, redirect, resource, scope string
}

// ClientID is the one client registered with the issuer (public: no
// secret).
const ClientID = "test-client"

// NewIssuer starts an issuer whose URL has the given path; oidcOnly
// serves only OpenID Connect discovery.
func NewIssuer(t testing.TB, path string, oidcOnly bool) *Issuer {
	is := &Issuer{path: path, oidcOnly: oidcOnly, keys: map[string]crypto.Signer{}, published: map[string]bool{}, codes: map[string]grant{}}
	is.Server = httptest.NewServer(http.HandlerFunc(is.serve))
	t.Cleanup(is.Close)
	return is
}

// Issuer is the issuer URL.
func (is *Issuer) Issuer() string { return is.URL + is.path }

func (is *Issuer) serve(w http.ResponseWriter, r *http.Request) {
	meta := map[string]any{
		"issuer": is.Issuer(), "jwks_uri": is.URL + "/jwks",
		"authorization_endpoint": is.URL + "/authorize", "token_endpoint": is.URL + "/token",
		"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
		"grant_types_supported": []string{"authorization_code"}, "token_endpoint_auth_methods_supported": []string{"none"},
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server" + is.path:
		if is.oidcOnly {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(meta)
	case is.path + "/.well-known/openid-configuration":
		json.NewEncoder(w).Encode(meta)
	case "/authorize":
		is.authorize(w, r)
	case "/token":
		is.token(w, r)
	case "/jwks":
		is.JWKSHits.Add(1)
		is.mu.Lock()
		defer is.mu.Unlock()
		var keys []map[string]string
		for kid := range is.published {
			keys = append(keys, jwkOf(kid, is.keys[kid].Public()))
		}
		json.NewEncoder(w).Encode(map[string]any{"keys": keys})
	default:
		http.NotFound(w, r)
	}
}

// AddKey adds a signing key; published keys are in the key set.
func (is *Issuer) AddKey(kid string, key crypto.Signer, publish bool) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys[kid] = key
	if publish {
		is.published[kid] = true
	}
}

// NewKey adds a fresh ECDSA P-256 signing key, published in the key set.
func (is *Issuer) NewKey(t testing.TB, kid string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is.AddKey(kid, key, true)
}

// Sign returns a token with claims, signed with key kid.
func (is *Issuer) Sign(t testing.TB, method jwt.SigningMethod, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = kid
	is.mu.Lock()
	key := is.keys[kid]
	is.mu.Unlock()
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func jwkOf(kid string, pub crypto.PublicKey) map[string]string {
	b64 := base64.RawURLEncoding.EncodeToString
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
	case *ecdsa.PublicKey:
		raw, _ := k.Bytes() // 0x04 || x || y
		n := (len(raw) - 1) / 2
		return map[string]string{"kty": "EC", "kid": kid, "crv": k.Params().Name, "x": b64(raw[1 : 1+n]), "y": b64(raw[1+n:])}
	case ed25519.PublicKey:
		return map[string]string{"kty": "OKP", "kid": kid, "crv": "Ed25519", "x": b64(k)}
	}
	panic("unknown key type")
}

// ApproveAs makes the issuer run the authorization code flow (with PKCE
// and resource indicators): every authorization is approved at once for a
// user with the given claims, and its token signed with key kid.
func (is *Issuer) ApproveAs(kid string, user jwt.MapClaims) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.flowKey, is.user = kid, user
}

func (is *Issuer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("response_type") != "code" || q.Get("client_id") != ClientID || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") == "" || q.Get("redirect_uri") == "" || q.Get("resource") == "" {
		http.Error(w, "invalid_request", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	is.mu.Lock()
	is.codes[code] = grant{q.Get("code_challenge"), q.Get("redirect_uri"), q.Get("resource"), q.Get("scope")}
	is.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (is *Issuer) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	client, _, basic := r.BasicAuth() // a public client may send its id either way
	if !basic {
		client = r.PostForm.Get("client_id")
	}
	is.mu.Lock()
	g, ok := is.codes[r.PostForm.Get("code")]
	delete(is.codes, r.PostForm.Get("code")) // a code is used once
	key, user := is.keys[is.flowKey], maps.Clone(is.user)
	is.mu.Unlock()
	verifier := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !ok || r.PostForm.Get("grant_type") != "authorization_code" || client != ClientID ||
		base64.RawURLEncoding.EncodeToString(verifier[:]) != g.challenge ||
		r.PostForm.Get("redirect_uri") != g.redirect || r.PostForm.Get("resource") != g.resource || key == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"invalid_grant"}`)
		return
	}
	user["iss"], user["aud"], user["scope"], user["exp"] = is.Issuer(), g.resource, g.scope, time.Now().Add(time.Hour).Unix()
	tok := jwt.NewWithClaims(signingMethod(key), user)
	tok.Header["kid"] = is.flowKey
	access, err := tok.SignedString(key)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "scope": g.scope})
}

func signingMethod(key crypto.Signer) jwt.SigningMethod {
	switch key.(type) {
	case *rsa.PrivateKey:
		return jwt.SigningMethodRS256
	case ed25519.PrivateKey:
		return jwt.SigningMethodEdDSA
	}
	return jwt.SigningMethodES256
}
