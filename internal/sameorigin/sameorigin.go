// Package sameorigin keeps an HTTP client's redirects on the origin its
// request was made to. The harness sends configured headers (a bearer
// token, an API key) to an MCP server or a model API; net/http forwards
// every header but Authorization and Cookie to any redirect target, and
// those two to any host that matches, whatever the port. A redirect to
// another scheme, host or port is therefore not followed at all: its
// response is the answer, and the caller reports it.
//
//	client := &http.Client{CheckRedirect: sameorigin.CheckRedirect(nil)}
package sameorigin

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// maxRedirects is net/http's own limit, kept when next is nil.
const maxRedirects = 10

// CheckRedirect returns an http.Client CheckRedirect that stops at a
// redirect leaving the first request's origin (http.ErrUseLastResponse,
// so the caller sees the 3xx response) and otherwise asks next, or applies
// net/http's default limit of 10 redirects when next is nil.
func CheckRedirect(next func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if !Same(req.URL, via[0].URL) {
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// Same reports whether a and b have one origin: scheme, host and port,
// with the scheme's default port filled in and case ignored.
func Same(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) &&
		strings.EqualFold(a.Hostname(), b.Hostname()) &&
		port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}
