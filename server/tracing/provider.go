package tracing

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/otlphttp"
)

// Exporter sends a batch of finished spans ([otlphttp.Client]).
type Exporter interface {
	Upload(ctx context.Context, spans []otlphttp.Span) error
}

// Batching says how finished spans are queued and sent, with the
// OpenTelemetry SDK's batch span processor's defaults.
type Batching struct {
	Delay     time.Duration // the longest a span waits before its batch is sent: 5 s
	Timeout   time.Duration // bounds one export: 30 s
	MaxQueue  int           // spans waiting beyond this are dropped: 2048
	MaxExport int           // the most spans in one batch; a full batch is sent at once: 512
}

// DefaultBatching returns the SDK's defaults.
func DefaultBatching() Batching {
	return Batching{Delay: 5 * time.Second, Timeout: 30 * time.Second, MaxQueue: 2048, MaxExport: 512}
}

// BatchingFromEnv returns DefaultBatching() with what OTEL_BSP_SCHEDULE_DELAY,
// OTEL_BSP_EXPORT_TIMEOUT (milliseconds), OTEL_BSP_MAX_QUEUE_SIZE and
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE set, as the SDK reads them. A value that
// is not a positive integer is an error; a batch larger than the queue is
// the queue's size.
func BatchingFromEnv(getenv func(string) string) (Batching, error) {
	b := DefaultBatching()
	var errs []error
	read := func(name string, set func(int)) {
		v := getenv(name)
		if v == "" {
			return
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a positive integer", name, v))
			return
		}
		set(n)
	}
	read("OTEL_BSP_SCHEDULE_DELAY", func(n int) { b.Delay = time.Duration(n) * time.Millisecond })
	read("OTEL_BSP_EXPORT_TIMEOUT", func(n int) { b.Timeout = time.Duration(n) * time.Millisecond })
	read("OTEL_BSP_MAX_QUEUE_SIZE", func(n int) { b.MaxQueue = n })
	read("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", func(n int) { b.MaxExport = n })
	b.MaxExport = min(b.MaxExport, b.MaxQueue)
	return b, errors.Join(errs...)
}

// Options configure a Provider.
type Options struct {
	Sampler  Sampler  // AlwaysOn when zero
	Batching Batching // DefaultBatching() when zero
	Logger   *slog.Logger
}

// Provider makes the spans of calls and sends the finished ones to its
// exporter in batches, from a goroutine of its own, so that a call never
// waits for the collector.
type Provider struct {
	exporter Exporter
	sampler  Sampler
	batching Batching
	logger   *slog.Logger

	mu      sync.Mutex
	queue   []otlphttp.Span
	dropped int
	closed  bool

	full chan struct{} // a batch is ready
	stop chan struct{} // Shutdown was called
	done chan struct{} // the last batch was sent
}

// NewProvider returns a provider that sends spans to exp until Shutdown.
func NewProvider(exp Exporter, opts Options) *Provider {
	if opts.Sampler.root == nil {
		opts.Sampler = AlwaysOn()
	}
	if opts.Batching == (Batching{}) {
		opts.Batching = DefaultBatching()
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	p := &Provider{
		exporter: exp, sampler: opts.Sampler, batching: opts.Batching, logger: opts.Logger,
		full: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go p.run()
	return p
}

// enqueue takes a finished span for the next batch; it drops the span
// when the queue is full or the provider shut down.
func (p *Provider) enqueue(s otlphttp.Span) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(p.queue) >= p.batching.MaxQueue {
		p.dropped++
		return
	}
	p.queue = append(p.queue, s)
	if len(p.queue) >= p.batching.MaxExport {
		select {
		case p.full <- struct{}{}:
		default:
		}
	}
}

// run sends a batch every Delay, or as soon as one is full, and the rest
// when Shutdown asks.
func (p *Provider) run() {
	defer close(p.done)
	tick := time.NewTicker(p.batching.Delay)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-p.full:
		case <-p.stop:
			for p.send() {
			}
			return
		}
		for p.send() && p.pending() >= p.batching.MaxExport {
		}
	}
}

func (p *Provider) pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)
}

// send exports up to MaxExport spans; it reports whether there were any.
func (p *Provider) send() bool {
	p.mu.Lock()
	n := min(len(p.queue), p.batching.MaxExport)
	batch := p.queue[:n:n]
	p.queue = p.queue[n:]
	dropped := p.dropped
	p.dropped = 0
	p.mu.Unlock()
	if dropped > 0 {
		p.logger.Warn("trace spans dropped: the export queue was full", "spans", dropped)
	}
	if n == 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.batching.Timeout)
	defer cancel()
	if err := p.exporter.Upload(ctx, batch); err != nil {
		p.logger.Warn("trace spans not exported", "spans", n, "err", err)
	}
	return true
}

// Shutdown sends the spans still queued and stops; spans that end later
// are dropped. Then, if the exporter has a Close method (as
// [otlphttp.Client] does, for its idle connections), it is called. It
// returns ctx's error if ctx ends first.
func (p *Provider) Shutdown(ctx context.Context) error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.stop)
	}
	p.mu.Unlock()
	select {
	case <-p.done:
		if c, ok := p.exporter.(interface{ Close() }); ok {
			c.Close()
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
