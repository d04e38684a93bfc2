// Package otlphttp sends spans to an OpenTelemetry collector over
// OTLP/HTTP in binary protobuf: the one POST of a batch that server/tracing
// makes, and the encoding of the OTLP messages it needs.
//
//	c, err := otlphttp.New("http://collector:4318/v1/traces", otlphttp.Resource{...})
//	err = c.Upload(ctx, spans)
//
// It replaces the OpenTelemetry SDK's exporter and the protobuf runtime,
// whose package initialization every repo-mcp process paid, tracing or not
// (see encode.go).
package otlphttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Timeout bounds one export, as the upstream exporter's default does.
const Timeout = 10 * time.Second

// Span is a finished span, as OTLP carries it.
type Span struct {
	TraceID      [16]byte
	SpanID       [8]byte
	ParentSpanID [8]byte // zero for a trace's root
	RemoteParent bool    // the parent is another process's span
	TraceState   string  // the W3C tracestate the parent came with
	Name         string
	Kind         SpanKind
	Start, End   time.Time
	Attributes   []KeyValue
	Status       StatusCode
	// StatusMessage says what the error was, with StatusCodeError.
	StatusMessage string
}

// SpanKind is OTLP's Span.SpanKind.
type SpanKind int

const (
	KindInternal SpanKind = 1
	KindServer   SpanKind = 2
)

// StatusCode is OTLP's Status.StatusCode.
type StatusCode int

const (
	StatusUnset     StatusCode = 0
	StatusCodeError StatusCode = 2
)

// KeyValue is an attribute of a span or a resource.
type KeyValue struct {
	Key   string
	Value Value
}

// Value is an attribute's value: a string, an integer or a boolean, the
// kinds repo-mcp's spans use.
type Value struct {
	kind valueKind
	s    string
	n    int64
}

type valueKind uint8

const (
	kindString valueKind = iota + 1
	kindInt
	kindBool
)

// String returns a string attribute.
func String(key, v string) KeyValue { return KeyValue{key, Value{kind: kindString, s: v}} }

// Int returns an integer attribute.
func Int(key string, v int64) KeyValue { return KeyValue{key, Value{kind: kindInt, n: v}} }

// Bool returns a boolean attribute.
func Bool(key string, v bool) KeyValue {
	var n int64
	if v {
		n = 1
	}
	return KeyValue{key, Value{kind: kindBool, n: n}}
}

// Resource is what every span of a batch shares: the process's attributes
// (service.name...) and the instrumentation scope that made the spans.
type Resource struct {
	Attributes   []KeyValue
	Scope        string
	ScopeVersion string
}

// Client posts batches of spans to one OTLP/HTTP traces endpoint. A
// failed batch is an error for the caller to log, not retried: spans are
// a diagnostic, and the batcher keeps collecting.
type Client struct {
	url  string
	res  Resource
	http *http.Client
}

// New returns a client for the endpoint rawURL, the full URL the
// collector serves traces at (such as http://collector:4318/v1/traces),
// that sends spans as res's.
func New(rawURL string, res Resource) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("OTLP endpoint: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q: want an http or https URL with a host", rawURL)
	}
	return &Client{url: u.String(), res: res, http: &http.Client{Timeout: Timeout}}, nil
}

// Close closes the idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// StatusError is a collector's refusal of a batch.
type StatusError struct {
	Code int
	Body string // the start of the response, for the operator
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("OTLP export: the collector answered %d %s: %s", e.Code, http.StatusText(e.Code), e.Body)
}

// Upload posts spans as one ExportTraceServiceRequest.
func (c *Client) Upload(ctx context.Context, spans []Span) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(encode(c.res, spans)))
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
