package workspace

import "testing"

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		match, prefix bool
	}{
		{"**/*.go", "a.go", true, true},
		{"**/*.go", "x/y/a.go", true, true},
		{"**/*.go", "x/y", false, true},
		{"*.go", "x/a.go", false, false},
		{"docs/**", "docs", true, true},
		{"docs/**", "docs/a/b", true, true},
		{"docs/**", "src", false, false},
		{"src/*.go", "src", false, true},
		{"src/*.go", "src/a.go", true, true},
		{"src/*.go", "src/a/b.go", false, false},
		{"a/**/b/**/c", "a/x/b/y/z/c", true, true},
		{"a/**/**/c", "a/c", true, true},
		{"/a/b", "a/b", true, true},
		{"a/[bc]/d", "a/c/d", true, true},
	} {
		g, err := ParseGlob(tc.pattern)
		if err != nil {
			t.Fatalf("ParseGlob(%q): %v", tc.pattern, err)
		}
		if got := g.Match(tc.path); got != tc.match {
			t.Errorf("%q.Match(%q) = %v", tc.pattern, tc.path, got)
		}
		if got := g.MatchPrefix(tc.path); got != tc.prefix {
			t.Errorf("%q.MatchPrefix(%q) = %v", tc.pattern, tc.path, got)
		}
	}
	for _, bad := range []string{"", "/", "a/[", `a\b`, "a\x00"} {
		if _, err := ParseGlob(bad); err == nil {
			t.Errorf("ParseGlob(%q) accepted", bad)
		}
	}
}

func TestDefaultDenyPatterns(t *testing.T) {
	deny, err := compileDenyList(DefaultDenyPatterns, []string{"/private", "fixtures/*.dump"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		".env", "app/.env", ".env.local", ".ENV", "certs/server.pem", "tls.KEY", "home/.ssh/id_rsa",
		".ssh", "x/.ssh/config", "id_ed25519.pub", ".aws/credentials", "u/.AWS/Credentials",
		".netrc", ".npmrc", ".pypirc", "keystore.p12", "a.pfx", "gcp/credentials.json",
		"client_secret_123.json", ".docker/config.json", ".kube/config", "infra/prod.tfstate",
		"private", "private/x", "fixtures/a.dump", "x/fixtures/a.dump",
	} {
		if _, ok := deny.match(p); !ok {
			t.Errorf("%q is not denied", p)
		}
	}
	for _, p := range []string{
		"environment.go", "env/x", "a.envrc.md", "keys.go", "pem/README", "ssh/x", ".aws/config",
		"credentials.go", "x/private", "fixtures/a/b.dump", "docker/config.json", "README.md",
	} {
		if pat, ok := deny.match(p); ok {
			t.Errorf("%q is denied by %q", p, pat)
		}
	}
}
