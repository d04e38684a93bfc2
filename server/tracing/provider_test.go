package tracing

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/otlphttp"
)

// counter is an exporter that counts the spans of each batch.
type counter struct {
	mu      sync.Mutex
	batches []int
	err     error
	closed  int // calls of Close
}

func (c *counter) Upload(_ context.Context, spans []otlphttp.Span) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batches = append(c.batches, len(spans))
	return c.err
}

// Close records that the provider closed the exporter.
func (c *counter) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed++
}

func (c *counter) sent() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.batches...)
}

func end(p *Provider, n int) {
	for range n {
		p.newSpan("s", otlphttp.KindInternal, newTraceID(), [8]byte{}, true, nil).End()
	}
}

// TestBatching: spans wait for the delay unless a batch is full; a full
// queue drops; Shutdown sends what is left and later spans are dropped.
func TestBatching(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counter{err: errors.New("the collector is down")} // a failed batch changes nothing
		p := NewProvider(c, Options{Batching: Batching{Delay: time.Second, Timeout: time.Second, MaxQueue: 5, MaxExport: 2}})
		end(p, 1)
		synctest.Wait()
		if got := c.sent(); len(got) != 0 {
			t.Fatalf("sent %v before the delay", got)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := c.sent(); len(got) != 1 || got[0] != 1 {
			t.Fatalf("after the delay sent %v; want [1]", got)
		}
		end(p, 2) // a full batch goes at once
		synctest.Wait()
		if got := c.sent(); len(got) != 2 || got[1] != 2 {
			t.Fatalf("a full batch: sent %v; want [1 2]", got)
		}
		// Fill the queue while the sender sleeps (no batch is signalled).
		p.mu.Lock()
		p.queue = make([]otlphttp.Span, 5)
		p.mu.Unlock()
		end(p, 3)
		p.mu.Lock()
		dropped := p.dropped
		p.mu.Unlock()
		if dropped != 3 {
			t.Errorf("a full queue dropped %d of 3 spans", dropped)
		}
		if err := p.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := c.sent()
		total := 0
		for _, n := range got[2:] {
			total += n
		}
		if total != 5 {
			t.Errorf("Shutdown sent %v after [1 2]; want the 5 queued", got[2:])
		}
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed != 1 {
			t.Errorf("Shutdown closed the exporter %d times; want once, after the last batch", closed)
		}
		end(p, 1)
		if p.pending() != 0 {
			t.Errorf("a span ended after Shutdown was queued")
		}
	})
}

func TestBatchingFromEnv(t *testing.T) {
	env := map[string]string{
		"OTEL_BSP_SCHEDULE_DELAY":        "200",
		"OTEL_BSP_EXPORT_TIMEOUT":        "x",
		"OTEL_BSP_MAX_QUEUE_SIZE":        "100",
		"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "1000",
	}
	b, err := BatchingFromEnv(func(k string) string { return env[k] })
	want := Batching{Delay: 200 * time.Millisecond, Timeout: 30 * time.Second, MaxQueue: 100, MaxExport: 100}
	if err == nil || b != want {
		t.Errorf("got %+v, %v; want %+v and an error for OTEL_BSP_EXPORT_TIMEOUT", b, err, want)
	}
	if b, err := BatchingFromEnv(func(string) string { return "" }); err != nil || b != DefaultBatching() {
		t.Errorf("with no variables: %+v, %v", b, err)
	}
}

func TestSamplerFromEnv(t *testing.T) {
	low, high := [16]byte{}, [16]byte{}
	binary.BigEndian.PutUint64(low[8:], 1<<60)    // 1/8 of the range once shifted
	binary.BigEndian.PutUint64(high[8:], 0xf<<60) // 15/16 of it
	tests := []struct {
		sampler, arg string
		ok           bool
		// decisions: a root with the low id, a root with the high id, a
		// child of a sampled parent, a child of an unsampled one
		want [4]bool
	}{
		{"", "", true, [4]bool{true, true, true, false}},
		{"parentbased_always_on", "", true, [4]bool{true, true, true, false}},
		{"parentbased_always_off", "", true, [4]bool{false, false, true, false}},
		{"always_on", "", true, [4]bool{true, true, true, true}},
		{"always_off", "", true, [4]bool{false, false, false, false}},
		{"traceidratio", "0.5", true, [4]bool{true, false, false, true}}, // children decide by their trace id too
		{"traceidratio", "", true, [4]bool{true, true, true, true}},
		{"parentbased_traceidratio", "0.5", true, [4]bool{true, false, true, false}},
		{"traceidratio", "1.5", false, [4]bool{}},
		{"jaeger_remote", "", false, [4]bool{}},
	}
	for _, tt := range tests {
		s, err := SamplerFromEnv(func(k string) string {
			return map[string]string{"OTEL_TRACES_SAMPLER": tt.sampler, "OTEL_TRACES_SAMPLER_ARG": tt.arg}[k]
		})
		if (err == nil) != tt.ok {
			t.Errorf("%s %s: %v", tt.sampler, tt.arg, err)
			continue
		}
		if !tt.ok {
			continue
		}
		got := [4]bool{s.sample(low, false, false), s.sample(high, false, false), s.sample(high, true, true), s.sample(low, true, false)}
		if got != tt.want {
			t.Errorf("%s %s: decided %v; want %v", tt.sampler, tt.arg, got, tt.want)
		}
	}
}
