package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/sameorigin"
)

// HTTPConfig configures a model behind an HTTP API.
type HTTPConfig struct {
	BaseURL   string // e.g. "https://api.example.com" (Anthropic) or "http://localhost:8080/v1" (OpenAI-compatible)
	APIKey    string
	Model     string
	MaxTokens int          // default 4096
	Client    *http.Client // default: a client with a 5 minute timeout
}

// client is the configured client, or the default, made to stop at a
// redirect to another origin: the API key (x-api-key, a bearer token) is
// never sent anywhere but the origin of BaseURL.
func (c *HTTPConfig) client() *http.Client {
	hc := http.Client{Timeout: 5 * time.Minute}
	if c.Client != nil {
		hc = *c.Client
	}
	hc.CheckRedirect = sameorigin.CheckRedirect(hc.CheckRedirect)
	return &hc
}

func (c *HTTPConfig) maxTokens() int {
	if c.MaxTokens > 0 {
		return c.MaxTokens
	}
	return 4096
}

// APIError is a non-2xx answer of a model API.
type APIError struct {
	Status int
	Body   string // the first bytes of the body
}

func (e *APIError) Error() string { return fmt.Sprintf("model API: HTTP %d: %s", e.Status, e.Body) }

// maxResponseBytes bounds a model API's answer.
const maxResponseBytes = 16 << 20

func postJSON(ctx context.Context, hc *http.Client, url string, header http.Header, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("model API: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("model API: %w", err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("model API: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return fmt.Errorf("model API: %w", err)
	}
	if len(raw) > maxResponseBytes {
		return fmt.Errorf("model API: answer larger than %d bytes", maxResponseBytes)
	}
	if resp.StatusCode/100 != 2 {
		body := string(raw[:min(len(raw), 512)])
		if loc := resp.Header.Get("Location"); resp.StatusCode/100 == 3 && loc != "" {
			body = fmt.Sprintf("a redirect to %q, not followed: it leaves the origin of base_url, where the API key may go; configure base_url to it if that is the API", loc)
		}
		return &APIError{Status: resp.StatusCode, Body: body}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("model API: malformed answer: %w", err)
	}
	return nil
}
