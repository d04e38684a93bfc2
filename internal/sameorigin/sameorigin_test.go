package sameorigin

import (
	"errors"
	"net/http"
	"net/url"
	"testing"
)

func TestCheckRedirect(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		follow   bool
	}{
		{"http://h:8080/mcp", "http://h:8080/other", true},
		{"http://H:8080/mcp", "HTTP://h:8080/x", true},
		{"http://h/mcp", "http://h:80/x", true},
		{"https://h/mcp", "https://h:443/x", true},
		{"http://h:8080/mcp", "http://h:8081/mcp", false},
		{"http://h/mcp", "https://h/mcp", false},
		{"https://h/mcp", "http://h/mcp", false},
		{"http://h/mcp", "http://evil/mcp", false},
		{"http://h/mcp", "http://sub.h/mcp", false},
		{"http://127.0.0.1:1/mcp", "http://localhost:1/mcp", false},
	} {
		from, to := mustParse(t, tc.from), mustParse(t, tc.to)
		err := CheckRedirect(nil)(&http.Request{URL: to}, []*http.Request{{URL: from}})
		if follow := err == nil; follow != tc.follow {
			t.Errorf("%s -> %s: %v; want follow %v", tc.from, tc.to, err, tc.follow)
		}
		if !tc.follow && !errors.Is(err, http.ErrUseLastResponse) {
			t.Errorf("%s -> %s: %v; want the redirect to be the answer", tc.from, tc.to, err)
		}
	}
}

func TestCheckRedirectAsksNext(t *testing.T) {
	stop := errors.New("next says no")
	check := CheckRedirect(func(*http.Request, []*http.Request) error { return stop })
	u := mustParse(t, "http://h/x")
	if err := check(&http.Request{URL: u}, []*http.Request{{URL: u}}); err != stop {
		t.Errorf("err %v; want next's", err)
	}
	via := make([]*http.Request, maxRedirects)
	for i := range via {
		via[i] = &http.Request{URL: u}
	}
	if err := CheckRedirect(nil)(&http.Request{URL: u}, via); err == nil {
		t.Error("followed an eleventh redirect")
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
