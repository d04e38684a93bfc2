// Package oauthtest is an OAuth authorization server for tests of
// resource servers.
package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

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
}

// NewIssuer starts an issuer whose URL has the given path; oidcOnly
// serves only OpenID Connect discovery.
func NewIssuer(t testing.TB, path string, oidcOnly bool) *Issuer {
	is := &Issuer{path: path, oidcOnly: oidcOnly, keys: map[string]crypto.Signer{}, published: map[string]bool{}}
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
