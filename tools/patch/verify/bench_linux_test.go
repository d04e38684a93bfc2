package verify

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/repo-mcp/repo-mcp/internal/benchlat"
)

// BenchmarkVerify runs the same go test of a small module with an
// httptest server, warm caches, through the sandbox ("sandbox") and as a
// plain go test ("direct"): the difference is the sandbox's overhead
// (bubblewrap, the export's copy, the probe, the cache program).
// bench/verify.sh prints the ratio of the medians.
func BenchmarkVerify(b *testing.B) {
	if os.Getuid() != 0 {
		b.Skip("the sandbox switches to an unprivileged uid only when the server runs as root")
	}
	c, err := New(Options{SelfHelper: true, BuildCache: os.TempDir() + "/repo-mcp-verify-bench-cache"})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.sandbox().err; err != nil {
		b.Skipf("no sandbox here: %v", err)
	}
	dir := b.TempDir()
	for name, content := range map[string]string{
		"go.mod":    "module m\n\ngo 1.22\n",
		"m_test.go": strings.Replace(httptestModule, `"io"`, "\"io\"\n\t\"net\"", 1),
	} {
		os.WriteFile(dir+"/"+name, []byte(content), 0o644)
	}
	specs := []Spec{{Name: "go_vet"}, {Name: "go_test"}}
	b.Run("sandbox", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			rep := c.Run(b.Context(), dir, specs)
			if !rep.Passed {
				b.Fatalf("%+v", rep)
			}
			lat = append(lat, time.Since(start))
		}
		benchlat.Report(b, lat)
	})
	b.Run("direct", func(b *testing.B) {
		var lat []time.Duration
		for b.Loop() {
			start := time.Now()
			for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "-json", "./..."}} {
				cmd := exec.Command(c.goTool().bin, args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, out)
				}
			}
			lat = append(lat, time.Since(start))
		}
		benchlat.Report(b, lat)
	})
}
