package gonav

import (
	"slices"
	"testing"

	"github.com/repo-mcp/repo-mcp/internal/gitfixture"
)

// TestLocalTypeImplements asks for the implementations of an interface
// that a type declared in a function of its package implements through
// an embedded field, as net's dialParallel declares one implementing
// net.Conn. Finding the local type checks the package again; its
// methods' signatures then name that check's types, which implements
// must compare with the interface as that check declares it. Asked of a
// service that checked the package and of one that read it from disk.
func TestLocalTypeImplements(t *testing.T) {
	repo := gitfixture.New(t)
	repo.Commit(t, "local", map[string]gitfixture.File{
		"go.mod": gitfixture.Text("module example.com/local\n\ngo 1.22\n"),
		"conn/conn.go": gitfixture.Text(`package conn

type Addr interface{ Network() string }

type Conn interface {
	Read(b []byte) (int, error)
	LocalAddr() Addr
}

func Dial() Conn {
	type result struct {
		Conn
		err error
	}
	return result{}.Conn
}
`),
	})
	opts := testOptions(t)
	want := []string{"conn/conn.go:11:7"}
	for _, name := range []string{"checked", "from disk"} {
		t.Run(name, func(t *testing.T) {
			c, sv := serve(t, repo.Dir, opts)
			out := navigate(t, c, map[string]any{"relation": Implementations, "symbol": "conn.Conn"})
			var got []string
			for _, l := range out.Results {
				got = append(got, locString(l))
			}
			if !slices.Equal(got, want) {
				t.Errorf("implementations of conn.Conn: %v, want %v", got, want)
			}
			sv.loader.store.wait()
		})
	}
}
