package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/repo-mcp/repo-mcp/internal/otlphttp"
	"github.com/repo-mcp/repo-mcp/server/tracing"
)

// newTracerProvider returns a provider that exports spans in batches to
// the OTLP/HTTP endpoint url (such as http://collector:4318/v1/traces).
// Nothing is exported unless the operator gives --otlp-endpoint. The
// sampler and the batching follow the OpenTelemetry SDK's environment
// variables (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG, OTEL_BSP_*); a
// value that cannot be read is logged and its default used, as the SDK
// does.
func newTracerProvider(url string, logger *slog.Logger) (*tracing.Provider, error) {
	client, err := otlphttp.New(url, otlphttp.Resource{
		Attributes: []otlphttp.KeyValue{otlphttp.String("service.name", "repo-mcp"), otlphttp.String("service.version", version())},
		Scope:      "github.com/repo-mcp/repo-mcp",
	})
	if err != nil {
		return nil, fmt.Errorf("--otlp-endpoint: %w", err)
	}
	sampler, err := tracing.SamplerFromEnv(os.Getenv)
	if err != nil {
		logger.Warn("tracing: using the default sampler", "err", err)
		sampler = tracing.AlwaysOn()
	}
	batching, err := tracing.BatchingFromEnv(os.Getenv)
	if err != nil {
		logger.Warn("tracing: using the default batching for what cannot be read", "err", err)
	}
	return tracing.NewProvider(client, tracing.Options{Sampler: sampler, Batching: batching, Logger: logger}), nil
}
