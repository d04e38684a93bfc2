package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// HTTPConfig configures a model behind an HTTP API.
type HTTPConfig struct {
	BaseURL   string // e.g. "https://api.example.com" (Anthropic) or "http://localhost:8080/v1" (OpenAI-compatible)
	APIKey    string
	Model     string
	MaxTokens int          // default 4096
	Client    *http.Client // default: a client with a 5 minute timeout
}

func (c *HTTPConfig) client() *http.Client {
	if c.Client != nil {
		return c.Client
	}
	return &http.Client{Timeout: 5 * time.Minute}
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
		return &APIError{Status: resp.StatusCode, Body: string(raw[:min(len(raw), 512)])}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("model API: malformed answer: %w", err)
	}
	return nil
}
