package server

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// BearerAuth makes [Server.HTTPHandler] require an OAuth 2.0 bearer token
// (RFC 6750) on every request. The token's [auth.TokenInfo.UserID] is the
// caller of the calls the request carries: authorization decides what that
// identity may do, as it does for the operator's calls over stdio.
type BearerAuth struct {
	// Verify checks a token and describes it. It must return an error
	// wrapping [auth.ErrInvalidToken] for a token it does not accept, and a
	// TokenInfo with a UserID for one it does; a token without a user is
	// refused. Tokens that expire must carry their Expiration, which is
	// then enforced.
	Verify auth.TokenVerifier
	// ResourceMetadataURL, when set, is announced in the WWW-Authenticate
	// challenge of refused requests (RFC 9728), for clients that obtain
	// tokens through OAuth.
	ResourceMetadataURL string
	// Scopes lists the scopes every token must have.
	Scopes []string
}

// errNoUser refuses a token its verifier accepted without naming a user:
// its calls would otherwise be made for no one, or for the operator.
var errNoUser = errors.New("the token verifier accepted a token without a user id")

// require puts go-sdk's bearer token check in front of next, which finds
// the token's description in the request's context, where the engine
// hands it to tool calls. A refused request is answered by the check.
func (a *BearerAuth) require(next http.Handler) http.Handler {
	verify := func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		info, err := a.Verify(ctx, token, r)
		if err == nil && info != nil && info.UserID == "" {
			return nil, errNoUser // a fault of the server's, answered 500
		}
		return info, err
	}
	return auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL:    a.ResourceMetadataURL,
		Scopes:                 a.Scopes,
		AllowMissingExpiration: true, // static tokens have none; the verifier sets one it knows
	})(next)
}

// hasBearer reports whether an Authorization header value presents a
// bearer token (the scheme is case-insensitive).
func hasBearer(authorization string) bool {
	scheme, token, _ := strings.Cut(authorization, " ")
	return strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) != ""
}

// challenger completes the challenge of a refusal as RFC 6750 section 3
// has it: go-sdk sends one only when it has parameters for it, and never
// says which error it was.
type challenger struct {
	http.ResponseWriter
	hadToken bool
}

func (c challenger) WriteHeader(status int) {
	var params []string
	switch {
	case status == http.StatusForbidden: // go-sdk's answer to missing scopes
		params = append(params, `error="insufficient_scope"`)
	case status == http.StatusUnauthorized && c.hadToken:
		params = append(params, `error="invalid_token"`)
	}
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		if given := strings.TrimSpace(strings.TrimPrefix(c.Header().Get("WWW-Authenticate"), "Bearer")); given != "" {
			params = append(params, given)
		}
		if len(params) == 0 {
			params = append(params, `realm="mcp"`)
		}
		c.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	}
	c.ResponseWriter.WriteHeader(status)
}
