//go:build !unix

package workspace

import (
	"os"
	"testing"
)

// makeFIFO stands in a regular file where FIFOs do not exist; the tests
// that count it as invalid then skip.
func makeFIFO(t *testing.T, name string) {
	t.Helper()
	t.Skip("no FIFOs on this platform")
	os.WriteFile(name, nil, 0o644)
}
