package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/internal/benchlat"
)

// BenchmarkListFilesFirst: the first full listing of a new server process
// (started and past its handshake before the timer runs), with sizes,
// paged by 10 000, against one git ls-tree -r -l, which prints sizes too.
// bench/readtools.sh prints the ratio.
func BenchmarkListFilesFirst(b *testing.B) {
	dir, _ := corpus(b)
	for _, v := range builds(b) {
		b.Run(v.name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				b.StopTimer()
				c := startBinary(b, v.bin, dir)
				b.StartTimer()
				start := time.Now()
				if err := listAll(c); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
				b.StopTimer()
				c.Close()
				b.StartTimer()
			}
			benchlat.Report(b, lat)
		})
	}
	b.Run("git", func(b *testing.B) {
		benchlat.Measure(b, func(int) error { return runQuiet("git", dir, "ls-tree", "-r", "-l", "HEAD") })
	})
}

// listAll lists the whole tree with sizes, 10 000 entries a page.
func listAll(c *client.Conn) error {
	args := map[string]any{"workspace_id": "go", "recursive": true, "limit": 10000}
	for {
		res, err := c.Call(context.Background(), "list_files", args)
		if err != nil {
			return fmt.Errorf("list_files: %w", err)
		}
		if res.IsError {
			return fmt.Errorf("list_files: error result %s", res.StructuredContent)
		}
		next := nextCursor(res.StructuredContent)
		if next == "" {
			return nil
		}
		args["cursor"] = next
	}
}
