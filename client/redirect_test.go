package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/client"
)

// A server that redirects to another port (or host, or scheme) never
// receives the configured headers, nor anything else: the redirect is the
// answer, reported with where it led. A redirect on the same origin is
// followed with the headers, as before. Both with the connection's own
// HTTP client and with one the caller gives.
func TestHTTPRedirectKeepsHeadersOnOrigin(t *testing.T) {
	target, rec, _ := goSDKHTTP(t, nil)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(other.Close)
	var moved *httptest.Server
	moved = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, moved.URL+"/mcp", http.StatusPermanentRedirect)
			return
		}
		if r.Header.Get("Authorization") != "Bearer secret-token" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		http.Error(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"followed with the token"}}`, http.StatusOK)
	}))
	t.Cleanup(moved.Close)
	for _, hc := range []*http.Client{nil, {}} {
		ep := client.Endpoint{URL: other.URL + "/mcp", Header: http.Header{"Authorization": {"Bearer secret-token"}}, HTTPClient: hc}
		c, err := client.Dial(context.Background(), ep, client.Options{})
		if err == nil {
			c.Close()
			t.Fatal("a redirect to another port was followed: the handshake succeeded")
		}
		if !strings.Contains(err.Error(), "307") || !strings.Contains(err.Error(), target) || strings.Contains(err.Error(), "secret-token") {
			t.Errorf("err = %v; want the 307 and where it led, and no token", err)
		}
		if n := len(rec.find("")) + len(rec.find("server/discover")) + len(rec.find("initialize")); n != 0 {
			t.Errorf("the other port received %d requests", n)
		}
		ep.URL = moved.URL + "/old"
		_, err = client.Dial(context.Background(), ep, client.Options{})
		if err == nil || !strings.Contains(err.Error(), "followed with the token") {
			t.Errorf("a redirect on the same origin: %v; want it followed with the token", err)
		}
	}
}
