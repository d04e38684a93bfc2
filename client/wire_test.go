package client_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/repo-mcp/repo-mcp/client"
)

var update = flag.Bool("update", false, "rewrite the golden wire transcripts in testdata/wire")

// TestWireTranscript pins every line the client writes in each era: the
// handshake, tools/list, tools/call, its answers to server requests, and the
// cancellation of a timed-out call. The server records what it receives.
func TestWireTranscript(t *testing.T) {
	for _, tt := range []struct{ name, mode, about string }{
		{"legacy", "normal", "A legacy server answers server/discover with -32601: the client falls back\nto initialize at 2025-11-25 and sends no _meta afterwards."},
		{"modern", "modern", "A modern server answers server/discover: every later request carries the\n2026-07-28 _meta (protocol version, client capabilities, client info)."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := misbehave(t, tt.mode)
			cmd.Args = append(cmd.Args, "-record")
			opts := client.Options{ClientInfo: client.Implementation{Name: "wire-test", Version: "1"}}
			c, err := client.Start(context.Background(), cmd, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			if _, err := c.Tools(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Call(ctx, "echo", map[string]string{"msg": "hi"}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Call(ctx, "chatty", nil); err != nil {
				t.Fatal(err)
			}
			short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			defer cancel()
			if _, err := c.Call(short, "hang", nil); client.OutcomeOf(err) != client.TimedOut {
				t.Fatalf("Call(hang) = %v; want timed_out", err)
			}
			waitStderr(c, "misbehave: cancelled")
			var sent bytes.Buffer
			for line := range strings.Lines(c.Stderr()) {
				if rest, ok := strings.CutPrefix(line, "recv: "); ok {
					sent.WriteString(rest)
				}
			}
			compareGolden(t, filepath.Join("testdata", "wire", tt.name+".txtar"), tt.about, sent.Bytes())
		})
	}
}

func compareGolden(t *testing.T, path, about string, got []byte) {
	t.Helper()
	if *update {
		a := &txtar.Archive{Comment: []byte(about + "\n"), Files: []txtar.File{{Name: "client", Data: got}}}
		if err := os.WriteFile(path, txtar.Format(a), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	a, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if len(a.Files) != 1 || a.Files[0].Name != "client" {
		t.Fatalf("%s: want one section named client", path)
	}
	want := a.Files[0].Data
	if !bytes.Equal(got, want) {
		t.Errorf("%s: the client sent\n%s\nwant\n%s\n(run with -update if the change is intended)", path, got, want)
	}
}
