package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTestJSON(t *testing.T) {
	var b strings.Builder
	j := &testJSON{w: &b}
	in := `{"Action":"start","Package":"m"}
{"Action":"output","Package":"m","Output":"=== RUN   TestA\n"}
# m
./m.go:3:1: syntax error
{"Action":"output","Package":"m","Output":"ok  \tm\t0.01s\n"}
{not json
last line without newline`
	for _, chunk := range []string{in[:20], in[20:77], in[77:]} { // events split across writes
		j.Write([]byte(chunk))
	}
	j.Flush()
	want := "=== RUN   TestA\n# m\n./m.go:3:1: syntax error\nok  \tm\t0.01s\n{not json\nlast line without newline"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

func TestRedact(t *testing.T) {
	key := "-----BEGIN TEST KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu\n}\n-----END TEST KEY-----\n"
	r := newRedactor([][]byte{[]byte(key), []byte("pw")})
	for _, tt := range []struct {
		in, want string
		n        int
	}{
		{"got " + key + "done", "got [redacted]\ndone", 1},
		{"line: MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu end", "line: [redacted] end", 1},
		{"}\n-----END TEST KEY-----", "}\n[redacted]", 1}, // a lone "}" and "pw" are too short to redact
		{"pw is short", "pw is short", 0},
	} {
		got, n := r.redact(tt.in)
		if got != tt.want || n != tt.n {
			t.Errorf("redact(%q) = %q, %d; want %q, %d", tt.in, got, n, tt.want, tt.n)
		}
	}
}

func TestParseProperties(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"", "", true},
		{"network", "network", true},
		{"pid, network,pid", "network, pid", true},
		{"all", "filesystem, limits, network, pid, uid", true},
		{"net", "", false},
	} {
		ps, err := ParseProperties(tt.in)
		if (err == nil) != tt.ok || (err == nil && joinProps(ps) != tt.want) {
			t.Errorf("ParseProperties(%q) = %v, %v; want %q", tt.in, ps, err, tt.want)
		}
	}
}

// TestRefusedWithoutSandbox checks that a run without a sandbox (here:
// no bubblewrap) refuses each check, without running it, unless the
// operator allowed every property it lacks, and then says which.
func TestRefusedWithoutSandbox(t *testing.T) {
	const unformatted = "package m\nfunc  F() {}\n"
	dir := writeModuleFiles(t, map[string]string{"go.mod": "module m\n\ngo 1.22\n", "m.go": unformatted})
	c, err := New(Options{SelfHelper: true, Bwrap: "/nonexistent/bwrap", FreshBuildCache: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := c.Run(t.Context(), dir, []Spec{{Name: "gofmt"}})
	if rep.Passed || rep.Checks[0].Refused == nil || !strings.Contains(rep.Checks[0].Error, "--verify-unconfined=uid, filesystem, pid, network, limits") {
		t.Errorf("without a sandbox: %+v", rep)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "m.go")); string(data) != unformatted {
		t.Errorf("a refused check ran: go fmt rewrote m.go")
	}
	c, err = New(Options{SelfHelper: true, Bwrap: "/nonexistent/bwrap", FreshBuildCache: true, Unconfined: Properties})
	if err != nil {
		t.Fatal(err)
	}
	rep = c.Run(t.Context(), dir, []Spec{{Name: "gofmt"}})
	iso := rep.Isolation
	if !strings.Contains(rep.Checks[0].Output, "m.go") || rep.Checks[0].Refused != nil {
		t.Errorf("an allowed check did not run: %+v", rep.Checks[0])
	}
	if iso.UID || iso.Filesystem || iso.PID || iso.Network || iso.Limits || len(iso.Unconfined) != 5 || len(iso.Notes) != 5 {
		t.Errorf("allowed without a sandbox: %+v", iso)
	}
}
