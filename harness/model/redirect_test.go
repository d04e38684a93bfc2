package model

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// A model API that redirects to another port never receives the API key,
// whichever adapter and header carries it: the redirect is the error.
func TestRedirectKeepsAPIKeyOnOrigin(t *testing.T) {
	var reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		http.Error(w, "should not be here", http.StatusTeapot)
	}))
	t.Cleanup(elsewhere.Close)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(api.Close)
	for _, hc := range []*http.Client{nil, {}} {
		cfg := HTTPConfig{BaseURL: api.URL, APIKey: "secret-key", Model: "m", Client: hc}
		for _, m := range []Model{NewAnthropic(cfg), NewOpenAI(cfg)} {
			_, err := m.Next(context.Background(), Request{Messages: []Message{{Role: User, Text: "hi"}}})
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.Status != http.StatusTemporaryRedirect || !strings.Contains(err.Error(), elsewhere.URL) {
				t.Errorf("%s: %v; want the 307 naming where it led", m.Name(), err)
			}
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the other port received %d requests", n)
	}
}
