package verify

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	RunHelper() // the sandbox runs this test binary as its helper
	os.Exit(m.Run())
}
