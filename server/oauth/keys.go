package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"time"
)

// keySet is the issuer's JSON Web Key Set (RFC 7517), fetched again when
// a token names a key it does not hold.
type keySet struct {
	url         string
	client      *http.Client
	minInterval time.Duration

	fetchMu sync.Mutex // one fetch at a time

	mu      sync.Mutex
	keys    map[string]publicKey // by kid
	fetched time.Time
}

type publicKey struct {
	key any    // *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey
	alg string // the only algorithm it may verify, when the set says so
}

func newKeySet(url string, client *http.Client, minInterval time.Duration) *keySet {
	return &keySet{url: url, client: client, minInterval: minInterval}
}

// lookup returns the key kid for a token signed with alg.
func (s *keySet) lookup(ctx context.Context, kid, alg string) (any, error) {
	k, ok, stale := s.find(kid)
	if !ok && stale {
		if err := s.refresh(ctx); err != nil {
			return nil, err
		}
		k, ok, _ = s.find(kid)
	}
	if !ok {
		return nil, fmt.Errorf("the issuer has no key %q", kid)
	}
	if k.alg != "" && k.alg != alg {
		return nil, fmt.Errorf("key %q is for %s, not %s", kid, k.alg, alg)
	}
	return k.key, nil
}

func (s *keySet) stale() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Since(s.fetched) >= s.minInterval
}

// find returns key kid, or the only key when kid is empty; stale says
// whether the set may be fetched again.
func (s *keySet) find(kid string) (k publicKey, ok, stale bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stale = time.Since(s.fetched) >= s.minInterval
	if kid == "" && len(s.keys) == 1 {
		for _, k := range s.keys {
			return k, true, stale
		}
	}
	k, ok = s.keys[kid]
	return k, ok, stale
}

// refresh fetches the set and replaces the keys held.
func (s *keySet) refresh(ctx context.Context) error {
	s.fetchMu.Lock()
	defer s.fetchMu.Unlock()
	if !s.stale() {
		return nil // another caller has just fetched it
	}
	keys, err := fetchKeys(ctx, s.client, s.url)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fetched = time.Now() // a failure too: the issuer is not asked again at once
	if err != nil {
		return err
	}
	s.keys = keys
	return nil
}

// jwk is the part of a JSON Web Key read here.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	Crv string `json:"crv"`
	N   string `json:"n"`
	E   string `json:"e"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func fetchKeys(ctx context.Context, client *http.Client, url string) (map[string]publicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("oauth: keys: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("oauth: keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("oauth: keys: %s answered %s", url, resp.Status)
	}
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("oauth: keys from %s: %w", url, err)
	}
	keys := make(map[string]publicKey)
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		key, err := k.publicKey()
		if err != nil {
			continue // a key this server cannot use; tokens signed with it are refused
		}
		keys[k.Kid] = publicKey{key: key, alg: k.Alg}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("oauth: %s holds no usable signing key", url)
	}
	return keys, nil
}

func (k jwk) publicKey() (any, error) {
	switch k.Kty {
	case "RSA":
		n, err1 := decodeBase64(k.N)
		e, err2 := decodeBase64(k.E)
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		key := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if key.N.BitLen() < 2048 || len(e) > 4 || key.E < 3 || key.E%2 == 0 {
			return nil, errors.New("weak or malformed RSA key")
		}
		return key, nil
	case "EC":
		curve := namedCurve(k.Crv)
		if curve == nil {
			return nil, fmt.Errorf("unknown curve %q", k.Crv)
		}
		size := (curve.Params().BitSize + 7) / 8
		x, err1 := decodeBase64(k.X)
		y, err2 := decodeBase64(k.Y)
		if err := errors.Join(err1, err2); err != nil || len(x) != size || len(y) != size {
			return nil, errors.New("malformed EC key")
		}
		return ecdsa.ParseUncompressedPublicKey(curve, append(append([]byte{4}, x...), y...))
	case "OKP":
		x, err := decodeBase64(k.X)
		if k.Crv != "Ed25519" || err != nil || len(x) != ed25519.PublicKeySize {
			return nil, errors.New("malformed or unsupported OKP key")
		}
		return ed25519.PublicKey(x), nil
	}
	return nil, fmt.Errorf("unsupported key type %q", k.Kty)
}

func namedCurve(name string) elliptic.Curve {
	switch name {
	case "P-256":
		return elliptic.P256()
	case "P-384":
		return elliptic.P384()
	case "P-521":
		return elliptic.P521()
	}
	return nil
}

func decodeBase64(s string) ([]byte, error) {
	if s == "" {
		return nil, errors.New("missing key member")
	}
	return base64.RawURLEncoding.DecodeString(s)
}
