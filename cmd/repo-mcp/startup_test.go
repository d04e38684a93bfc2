package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Package initialization runs for every command, repo-mcp version and each
// new server process alike, so heavy work belongs at first use. The Go
// runtime reports what each package's init allocated (GODEBUG=inittrace=1),
// which, unlike its time, the machine's load does not move.
const (
	// maxInitBytes bounds what all packages together allocate at init
	// (0.37 MB now; 0.62 MB with the Prometheus client and the
	// OpenTelemetry SDK; 2.3 MB when the JSON Schema validator compiled
	// every draft's meta-schemas in its init).
	maxInitBytes = 448 << 10
	// maxInitPackages bounds how many packages the binary initializes (170
	// now, 160 of them outside this module; a program importing only
	// go-sdk's mcp, net/http, go-git and go/types initializes 151).
	// Package init is about 11 ms of the 25 ms of CPU `version` and every
	// new server spend before main, 0.06 ms a package on average, page
	// faults of its code and data included (docs/perf.md): a new
	// dependency should be worth that.
	maxInitPackages = 176
	// maxOwnInitBytes bounds each of this module's packages (2 KB at
	// most now; the symbol index's CRC table and the diff parser's
	// regexps, 9 KB each, are made at first use).
	maxOwnInitBytes = 4 << 10
	// maxForkInitBytes bounds the validator's fork in internal/jsonschema,
	// whose tables of drafts, formats and messages are upstream's, kept as
	// they are so that the fork stays a copy (9.5 KB now).
	maxForkInitBytes = 16 << 10
)

// heavyInit are dependencies whose package initialization every process
// paid, metrics or traces served or not, and which the server no longer
// links: server/metrics writes the Prometheus exposition and
// server/tracing and internal/otlphttp the OTLP spans. Tests may import
// them (to parse what those write); the binary must not.
var heavyInit = []string{"github.com/prometheus/", "go.opentelemetry.io/", "google.golang.org/protobuf/"}

func TestInitIsLight(t *testing.T) {
	cmd := exec.Command(repoMCP(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("repo-mcp version: %v\n%s", err, stderr.Bytes())
	}
	total, packages := 0, 0
	for line := range strings.Lines(stderr.String()) {
		// init PKG @T ms, C ms clock, B bytes, N allocs
		var pkg string
		var at, clock float64
		var bytes, allocs int
		if _, err := fmt.Sscanf(line, "init %s @%f ms, %f ms clock, %d bytes, %d allocs", &pkg, &at, &clock, &bytes, &allocs); err != nil {
			continue
		}
		packages++
		total += bytes
		for _, prefix := range heavyInit {
			if strings.HasPrefix(pkg, prefix) {
				t.Errorf("the binary initializes %s (%d bytes, %.2f ms): who links it again?", pkg, bytes, clock)
			}
		}
		limit := maxOwnInitBytes
		switch {
		case pkg == "github.com/repo-mcp/repo-mcp/internal/jsonschema":
			limit = maxForkInitBytes
		case !strings.HasPrefix(pkg, "github.com/repo-mcp/repo-mcp/"):
			continue
		}
		if bytes > limit {
			t.Errorf("%s allocates %d bytes at init (%d allocations); at most %d: do the work at first use", pkg, bytes, allocs, limit)
		}
	}
	if packages < 100 {
		t.Fatalf("read %d packages' init from GODEBUG=inittrace=1; the trace's format changed?\n%s", packages, stderr.Bytes())
	}
	if packages > maxInitPackages {
		t.Errorf("the binary initializes %d packages; at most %d: which new dependency brought the rest?", packages, maxInitPackages)
	}
	if total > maxInitBytes {
		t.Errorf("package initialization allocates %d bytes; at most %d", total, maxInitBytes)
	}
}
