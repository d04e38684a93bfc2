package main

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/repo-mcp/repo-mcp/internal/otlphttp"
)

// newTracerProvider returns a provider that exports spans in batches to
// the OTLP/HTTP endpoint url (such as http://collector:4318/v1/traces).
// Nothing is exported unless the operator gives --otlp-endpoint.
func newTracerProvider(ctx context.Context, url string) (*sdktrace.TracerProvider, error) {
	client, err := otlphttp.New(url)
	if err != nil {
		return nil, fmt.Errorf("--otlp-endpoint: %w", err)
	}
	exporter, err := otlptrace.New(ctx, client)
	if err != nil {
		return nil, fmt.Errorf("--otlp-endpoint: %w", err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "repo-mcp"), attribute.String("service.version", version()))
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)), nil
}
