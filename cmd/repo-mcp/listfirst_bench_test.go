package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/benchlat"
)

// BenchmarkListFilesFirst: the first full listing of a new server process
// (started and past its handshake before the timer runs), with sizes,
// paged by 10 000, against one git ls-tree -r -l, which prints sizes too.
// bench/readtools.sh prints the ratio.
func BenchmarkListFilesFirst(b *testing.B) {
	dir, _ := corpus(b)
	b.Run("ours", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			b.StopTimer()
			c := startServer(b, dir)
			b.StartTimer()
			start := time.Now()
			args := map[string]any{"workspace_id": "go", "recursive": true, "limit": 10000}
			for {
				res, err := c.Call(context.Background(), "list_files", args)
				if err != nil || res.IsError {
					b.Fatalf("list_files: %v %v", err, res)
				}
				next := nextCursor(res.StructuredContent)
				if next == "" {
					break
				}
				args["cursor"] = next
			}
			lat = append(lat, time.Since(start))
			b.StopTimer()
			c.Close()
			b.StartTimer()
		}
		benchlat.Report(b, lat)
	})
	b.Run("git", func(b *testing.B) {
		benchlat.Measure(b, func(int) error {
			cmd := exec.Command("git", "ls-tree", "-r", "-l", "HEAD")
			cmd.Dir = dir
			cmd.Stdout = io.Discard
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("git ls-tree: %w", err)
			}
			return nil
		})
	})
}
