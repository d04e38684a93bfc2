// Package otlphttp sends OpenTelemetry spans to a collector over OTLP/HTTP
// in binary protobuf. It is the transport of the SDK's OTLP trace exporter
// (go.opentelemetry.io/otel/exporters/otlp/otlptrace), written here
// because the upstream HTTP client links the gRPC stack through its
// configuration package: it doubled the static binary for one POST.
package otlphttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Timeout bounds one export, as the upstream exporter's default does.
const Timeout = 10 * time.Second

// Client posts batches of spans to one OTLP/HTTP traces endpoint. It
// implements [otlptrace.Client]; a failed batch is an error for the SDK's
// error handler, not retried: spans are a diagnostic, and the batcher
// keeps collecting.
type Client struct {
	url  string
	http *http.Client
}

var _ otlptrace.Client = (*Client)(nil)

// New returns a client for the endpoint rawURL, the full URL the
// collector serves traces at (such as http://collector:4318/v1/traces).
func New(rawURL string) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("OTLP endpoint: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q: want an http or https URL with a host", rawURL)
	}
	return &Client{url: u.String(), http: &http.Client{Timeout: Timeout}}, nil
}

// Start does nothing: each batch opens its connection as it needs one.
func (c *Client) Start(context.Context) error { return nil }

// Stop closes the idle connections.
func (c *Client) Stop(context.Context) error {
	c.http.CloseIdleConnections()
	return nil
}

// StatusError is a collector's refusal of a batch.
type StatusError struct {
	Code int
	Body string // the start of the response, for the operator
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("OTLP export: the collector answered %d %s: %s", e.Code, http.StatusText(e.Code), e.Body)
}

// UploadTraces posts spans as one ExportTraceServiceRequest.
func (c *Client) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	body, err := encode(spans)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("OTLP export: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("OTLP export: %w", err)
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // lets the connection be reused
	if resp.StatusCode/100 != 2 {
		return &StatusError{Code: resp.StatusCode, Body: string(head)}
	}
	return nil
}

// encode returns the ExportTraceServiceRequest of spans in binary
// protobuf. TracesData has the request's one field (resource_spans = 1) so
// that protocols may embed it, as the OTLP proto says; encoding it spares
// the collector package, which links gRPC.
func encode(spans []*tracepb.ResourceSpans) ([]byte, error) {
	data, err := proto.Marshal(&tracepb.TracesData{ResourceSpans: spans})
	if err != nil {
		return nil, fmt.Errorf("OTLP export: encoding spans: %w", err)
	}
	return data, nil
}
