package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/repo-mcp/repo-mcp/workspace"
)

// fileConfig is the --config file: the workspaces and who may do what in
// them (the workspace layer's Config), and who may call over HTTP, which is
// this command's business alone.
//
//	workspaces: ...             # see workspace.Config
//	policies: ...
//	tokens:                     # who calls over HTTP (serve --http)
//	  - identity: alice
//	    sha256: 5e8848...       # of the token; repo-mcp token alice makes one
//	    expires: 2027-06-30     # optional
//	toolsets: [read, search]    # tool families served (default all; --toolsets overrides)
//	oauth:                      # or tokens from an OAuth authorization server
//	  resource: https://repo.example/mcp
//	  issuer: https://idp.example/realms/eng
//	  identity_claim: email     # default sub
type fileConfig struct {
	workspace.Config `yaml:",inline"`
	Tokens           []tokenConfig `yaml:"tokens"`
	// Toolsets are the tool families the deployment serves (default all;
	// the --toolsets flag overrides them).
	Toolsets []string     `yaml:"toolsets"`
	OAuth    *oauthConfig `yaml:"oauth"`
}

// tokenConfig lets an identity call over HTTP with a bearer token. Only
// the token's digest is configured, so the file holds no secret.
type tokenConfig struct {
	// Identity is the caller the token's calls are made for; policies
	// grant it actions.
	Identity string `yaml:"identity"`
	// SHA256 is the hex SHA-256 of the token.
	SHA256 string `yaml:"sha256"`
	// Expires, when set, is when the token stops being accepted.
	Expires time.Time `yaml:"expires"`
}

// oauthConfig lets callers over HTTP present access tokens from an OAuth
// authorization server; the server checks them as package server/oauth
// describes.
type oauthConfig struct {
	// Resource is the server's public URL, which tokens must be issued for.
	Resource string `yaml:"resource"`
	// Issuer is the authorization server's issuer URL.
	Issuer string `yaml:"issuer"`
	// JWKSURL overrides the key set URL read from the issuer's metadata.
	JWKSURL string `yaml:"jwks_url"`
	// IdentityClaim names the token claim that is the caller's identity
	// (default sub).
	IdentityClaim string `yaml:"identity_claim"`
	// Scopes lists scopes every token must carry.
	Scopes []string `yaml:"scopes"`
}

// decodeConfig decodes a YAML configuration strictly: unknown keys, a
// second document and values of the wrong type are errors.
func decodeConfig(r io.Reader) (fileConfig, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20+1))
	if err != nil {
		return fileConfig{}, fmt.Errorf("reading config: %w", err)
	}
	if len(data) > 1<<20 {
		return fileConfig{}, errors.New("config is larger than 1 MiB")
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var cfg fileConfig
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return fileConfig{}, fmt.Errorf("config: %w", err)
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return fileConfig{}, errors.New("config: more than one YAML document")
	}
	return cfg, nil
}

// validate checks the parts of a configuration that do not need the disk.
func (c fileConfig) validate() error {
	if err := c.Config.Validate(); err != nil {
		return err
	}
	if o := c.OAuth; o != nil && (o.Resource == "" || o.Issuer == "") {
		return errors.New("oauth needs resource and issuer")
	}
	return validateTokens(c.Tokens)
}

func validateTokens(tokens []tokenConfig) error {
	digests := make(map[string]bool)
	for i, t := range tokens {
		if t.Identity == "" || t.Identity == "*" || strings.ContainsFunc(t.Identity, unicode.IsControl) {
			return fmt.Errorf("token %d: identity %q cannot call", i+1, t.Identity)
		}
		if sum, err := hex.DecodeString(t.SHA256); err != nil || len(sum) != sha256.Size || t.SHA256 != strings.ToLower(t.SHA256) {
			return fmt.Errorf("token %d (%s): sha256 wants 64 lower-case hex digits", i+1, t.Identity)
		}
		if digests[t.SHA256] {
			return fmt.Errorf("token %d (%s): the same token is configured twice", i+1, t.Identity)
		}
		digests[t.SHA256] = true
	}
	return nil
}

// identities are the callers the configuration names: the operator's,
// the token holders' and the policies' own (not "*"), for bounded metric
// labels.
func (c fileConfig) identities(operator string) []string {
	ids := []string{operator}
	for _, t := range c.Tokens {
		ids = append(ids, t.Identity)
	}
	for _, p := range c.Policies {
		if p.Identity != "*" {
			ids = append(ids, p.Identity)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}
