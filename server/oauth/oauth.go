// Package oauth makes a server built with package server an OAuth 2.1
// resource server, as the MCP authorization specification asks of an HTTP
// server: it accepts the JWT access tokens that one authorization server
// issued for it, names the caller of each request after a claim of the
// token, and serves the Protected Resource Metadata (RFC 9728) that tells a
// client where to get a token.
//
//	rs, err := oauth.New(ctx, oauth.Config{
//		Resource: "https://repo.example/mcp",
//		Issuer:   "https://idp.example/realms/eng",
//	})
//	if err != nil { ... }
//	mux.Handle("/mcp", srv.HTTPHandler(server.HTTPOptions{Auth: rs.BearerAuth()}))
//	for _, path := range rs.MetadataPaths() {
//		mux.Handle(path, rs.MetadataHandler())
//	}
//
// A token is accepted when its signature verifies with a key of the
// issuer's JSON Web Key Set, its iss is the issuer, its aud names the
// resource (RFC 8707: a token issued for another server is refused, so
// it cannot be replayed here), it has not expired, and it carries the
// required scopes. Keys are fetched at New and again when a token names a
// key not seen yet (at most once per [Config.KeyRefresh]), so the issuer
// can rotate them.
package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/repo-mcp/repo-mcp/server"
)

// Config describes the resource server and the one authorization server
// it trusts.
type Config struct {
	// Resource is the server's canonical URL, the audience its tokens must
	// name: scheme, host and the path of the MCP endpoint.
	Resource string
	// Issuer is the authorization server's issuer URL.
	Issuer string
	// JWKSURL is where the issuer publishes its keys. Empty: read from the
	// issuer's metadata (RFC 8414, or OpenID Connect discovery).
	JWKSURL string
	// IdentityClaim names the claim whose string value is the caller's
	// identity, which policies grant actions to. Default "sub".
	IdentityClaim string
	// Scopes lists scopes every token must carry.
	Scopes []string
	// Leeway tolerates clock skew on exp and nbf. Default 30s.
	Leeway time.Duration
	// KeyRefresh is the least time between two fetches of the keys.
	// Default 30s.
	KeyRefresh time.Duration
	// HTTPClient fetches the metadata and the keys. Default: a client with
	// a 10s timeout.
	HTTPClient *http.Client
}

// ResourceServer verifies access tokens for one resource.
type ResourceServer struct {
	cfg    Config
	keys   *keySet
	parser *jwt.Parser
}

// New checks cfg, finds the issuer's keys and fetches them.
func New(ctx context.Context, cfg Config) (*ResourceServer, error) {
	if err := checkURL("resource", cfg.Resource); err != nil {
		return nil, err
	}
	if err := checkURL("issuer", cfg.Issuer); err != nil {
		return nil, err
	}
	if cfg.IdentityClaim == "" {
		cfg.IdentityClaim = "sub"
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	}
	if cfg.KeyRefresh == 0 {
		cfg.KeyRefresh = 30 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.JWKSURL == "" {
		meta, err := discover(ctx, cfg.Issuer, cfg.HTTPClient)
		if err != nil {
			return nil, err
		}
		cfg.JWKSURL = meta.JWKSURI
	}
	if err := checkURL("jwks_url", cfg.JWKSURL); err != nil {
		return nil, err
	}
	rs := &ResourceServer{
		cfg:  cfg,
		keys: newKeySet(cfg.JWKSURL, cfg.HTTPClient, cfg.KeyRefresh),
		// Asymmetric algorithms only, so that a public key can never be
		// taken for an HMAC secret.
		parser: jwt.NewParser(jwt.WithValidMethods([]string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}),
			jwt.WithIssuer(cfg.Issuer),
			jwt.WithExpirationRequired(), jwt.WithLeeway(cfg.Leeway)),
	}
	if err := rs.keys.refresh(ctx); err != nil {
		return nil, err
	}
	return rs, nil
}

// discover reads the issuer's metadata: RFC 8414 first, then OpenID
// Connect discovery, which many issuers serve instead.
func discover(ctx context.Context, issuer string, c *http.Client) (*oauthex.AuthServerMeta, error) {
	u, _ := url.Parse(issuer)
	path := strings.TrimSuffix(u.Path, "/")
	candidates := []string{
		u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + path,
		u.Scheme + "://" + u.Host + path + "/.well-known/openid-configuration",
	}
	var errs []error
	for _, metaURL := range candidates {
		meta, err := oauthex.GetAuthServerMeta(ctx, metaURL, issuer, c)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("%s: %w", metaURL, err))
		case meta == nil:
			errs = append(errs, fmt.Errorf("%s: not found", metaURL))
		case meta.JWKSURI == "":
			errs = append(errs, fmt.Errorf("%s: no jwks_uri", metaURL))
		default:
			return meta, nil
		}
	}
	return nil, fmt.Errorf("oauth: no usable metadata for issuer %s: %w", issuer, errors.Join(errs...))
}

// checkURL accepts absolute https URLs, and http ones on loopback hosts
// (for development); never a fragment.
func checkURL(name, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("oauth: %s %q is not an absolute URL without fragment or credentials", name, raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if h := u.Hostname(); h == "localhost" || net.ParseIP(h).IsLoopback() {
			return nil
		}
	}
	return fmt.Errorf("oauth: %s %q must use https", name, raw)
}

// Verify checks an access token, as an [auth.TokenVerifier].
func (rs *ResourceServer) Verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	claims := jwt.MapClaims{}
	_, err := rs.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return rs.keys.lookup(ctx, kid, t.Method.Alg())
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", auth.ErrInvalidToken, err)
	}
	aud, err := claims.GetAudience()
	if err != nil || !oauthex.MatchesResource(aud, rs.cfg.Resource) {
		return nil, fmt.Errorf("%w: the token was not issued for %s", auth.ErrInvalidToken, rs.cfg.Resource)
	}
	identity, _ := claims[rs.cfg.IdentityClaim].(string)
	if identity == "" {
		return nil, fmt.Errorf("%w: the token has no %q claim naming its user", auth.ErrInvalidToken, rs.cfg.IdentityClaim)
	}
	exp, _ := claims.GetExpirationTime() // required by the parser
	return &auth.TokenInfo{UserID: identity, Scopes: scopes(claims), Expiration: exp.Time}, nil
}

// scopes reads the token's scopes: a space-separated "scope" string
// (RFC 9068), or an "scp" array as some issuers send.
func scopes(claims jwt.MapClaims) []string {
	if s, ok := claims["scope"].(string); ok {
		return strings.Fields(s)
	}
	var out []string
	if list, ok := claims["scp"].([]any); ok {
		for _, v := range list {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// BearerAuth is what [server.HTTPOptions.Auth] needs to require these
// tokens; refusals point clients at the metadata.
func (rs *ResourceServer) BearerAuth() *server.BearerAuth {
	return &server.BearerAuth{Verify: rs.Verify, ResourceMetadataURL: rs.MetadataURL(), Scopes: rs.cfg.Scopes}
}

// MetadataPaths are where the metadata is served: the well-known path
// suffixed with the resource's path (RFC 9728 section 3.1), and the bare
// well-known path, which clients also try.
func (rs *ResourceServer) MetadataPaths() []string {
	u, _ := url.Parse(rs.cfg.Resource)
	paths := []string{"/.well-known/oauth-protected-resource"}
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		paths = slices.Insert(paths, 0, paths[0]+p)
	}
	return paths
}

// MetadataURL is the absolute URL of the metadata, announced in the
// challenge of refused requests.
func (rs *ResourceServer) MetadataURL() string {
	u, _ := url.Parse(rs.cfg.Resource)
	return u.Scheme + "://" + u.Host + rs.MetadataPaths()[0]
}

// Host is the host (and port) of the resource URL, the Host header its
// clients send.
func (rs *ResourceServer) Host() string {
	u, _ := url.Parse(rs.cfg.Resource)
	return u.Host
}

// MetadataHandler serves the Protected Resource Metadata.
func (rs *ResourceServer) MetadataHandler() http.Handler {
	return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               rs.cfg.Resource,
		AuthorizationServers:   []string{rs.cfg.Issuer},
		ScopesSupported:        rs.cfg.Scopes,
		BearerMethodsSupported: []string{"header"},
	})
}
