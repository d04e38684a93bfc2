package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// tokenPrefix starts every token repo-mcp token makes, which tells them
// from OAuth access tokens.
const tokenPrefix = "rmcp_"

// tokenVerifier accepts the bearer tokens the configuration lists by
// digest, for the identities it names.
func tokenVerifier(tokens []tokenConfig) auth.TokenVerifier {
	byDigest := make(map[[sha256.Size]byte]tokenConfig, len(tokens))
	for _, t := range tokens {
		var d [sha256.Size]byte
		hex.Decode(d[:], []byte(t.SHA256)) // checked by validateTokens
		byDigest[d] = t
	}
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		t, ok := byDigest[sha256.Sum256([]byte(token))]
		if !ok {
			return nil, fmt.Errorf("%w: not a token of this server", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{UserID: t.Identity, Expiration: t.Expires}, nil
	}
}

// newToken writes a fresh token for identity and the configuration entry
// that lets it call: the token is shown this once and kept nowhere.
func newToken(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("token", stdout, stderr)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err // -h, or an identity that looks like a flag
	}
	args = fs.Args()
	if len(args) != 1 || args[0] == "" || args[0] == "*" {
		fmt.Fprint(stderr, "usage: repo-mcp token IDENTITY\n")
		return errUsage
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(secret)
	digest := sha256.Sum256([]byte(token))
	if err := validateTokens([]tokenConfig{{Identity: args[0], SHA256: hex.EncodeToString(digest[:])}}); err != nil {
		return err
	}
	_, err := fmt.Fprintf(stdout, "%s\n# Give the token above to %s; it is not stored anywhere.\n"+
		"# Add this entry to the tokens of the --config file, and a policy for %[2]s:\ntokens:\n  - identity: %[2]q\n    sha256: %x\n",
		token, args[0], digest)
	return err
}
