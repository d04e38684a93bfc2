package workspace

import (
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestDefaultDenyPatterns lists common secret files, which the default
// patterns must deny, and ordinary files that look like them, which they
// must not.
func TestDefaultDenyPatterns(t *testing.T) {
	deny, err := compileDenyList(DefaultDenyPatterns, []string{"/private", "fixtures/*.dump"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		denied bool
	}{
		// Environment files.
		{".env", true},
		{"app/.env", true},
		{".ENV", true},
		{".env.local", true},
		{".env.production", true},
		{".env-production", true},
		{".env_local", true},
		{"prod.env", true},
		{"deploy/staging.env", true},
		{".envrc", true},
		{"environment.go", false},
		{"env/x", false},
		{"env.go", false},
		{"src/env.ts", false},
		{"env.d.ts", false},
		{"a.envrc.md", false},
		{"envoy.yaml", false},
		{"prod.environment", false},
		// Keys and key stores.
		{"certs/server.pem", true},
		{"tls.KEY", true},
		{"AuthKey_ABC123.p8", true},
		{"keystore.p12", true},
		{"a.pfx", true},
		{"release.jks", true},
		{"android/app/upload.keystore", true},
		{"home/.ssh/id_rsa", true},
		{"id_ed25519", true},
		{"id_ed25519.pub", true},
		{"id_ecdsa", true},
		{".ssh", true},
		{"x/.ssh/config", true},
		{"keys.go", false},
		{"pem/README", false},
		{"ssh/x", false},
		{"keystore.go", false},
		{"p8.go", false},
		// Cloud credentials.
		{".aws/credentials", true},
		{"u/.AWS/Credentials", true},
		{".aws/config", true},
		{".config/gcloud/application_default_credentials.json", true},
		{"application_default_credentials.json", true},
		{".config/gcloud/legacy_credentials/a/adc.json", true},
		{".azure/accessTokens.json", true},
		{".azure/azureProfile.json", true},
		{"msal_token_cache.json", true},
		{".boto", true},
		{".s3cfg", true},
		{"gcp/credentials.json", true},
		{"client_secret_123.json", true},
		{"service-account-prod.json", true},
		{"aws/config.go", false},
		{"credentials.go", false},
		{"azure/client.go", false},
		// Containers and Kubernetes.
		{"kubeconfig", true},
		{"deploy/kubeconfig.yaml", true},
		{"prod.kubeconfig", true},
		{".kube/config", true},
		{".dockercfg", true},
		{".docker/config.json", true},
		{"docker/config.json", false},
		{"kube/config", false},
		{"kubeconfig.go", false},
		{"kubeconfig_test.go", false},
		// Package registries and git.
		{".npmrc", true},
		{".pypirc", true},
		{".netrc", true},
		{"_netrc", true},
		{".cargo/credentials", true},
		{".cargo/credentials.toml", true},
		{".gem/credentials", true},
		{".m2/settings.xml", true},
		{".gradle/gradle.properties", true},
		{".git-credentials", true},
		{".config/gh/hosts.yml", true},
		{".cargo/config.toml", false},
		{"settings.xml", false},
		{"gradle.properties", false},
		{".yarnrc.yml", false},
		{"npmrc.go", false},
		// Terraform.
		{"infra/prod.tfstate", true},
		{"terraform.tfstate.backup", true},
		{"terraform.tfvars", true},
		{"prod.auto.tfvars", true},
		{"vars.tfvars.json", true},
		{"main.tf", false},
		{"variables.tf", false},
		// Services and applications.
		{".pgpass", true},
		{".htpasswd", true},
		{".vault-token", true},
		{"config/secrets.yml", true},
		{"secrets.json", true},
		{"secrets.go", false},
		{"README.md", false},
		// The workspace's own patterns.
		{"private", true},
		{"private/x", true},
		{"fixtures/a.dump", true},
		{"x/fixtures/a.dump", true},
		{"x/private", false},
		{"fixtures/a/b.dump", false},
	} {
		pat, denied := deny.match(tc.path)
		switch {
		case tc.denied && !denied:
			t.Errorf("%q is not denied", tc.path)
		case !tc.denied && denied:
			t.Errorf("%q is denied by %q", tc.path, pat)
		}
	}
}

// BenchmarkDenyMatchEntry judges every path of the benchmark corpus by the
// default deny list, as a first listing does.
func BenchmarkDenyMatchEntry(b *testing.B) {
	dir, _ := benchCorpus(b)
	paths := strings.Fields(gitfixture.Git(b, dir, "ls-tree", "-r", "-t", "--name-only", "HEAD"))
	d, err := compileDenyList(DefaultDenyPatterns)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for _, p := range paths {
			d.matchEntry(p)
		}
	}
}
