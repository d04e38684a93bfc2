package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/repo-mcp/repo-mcp/harness/model"
)

// One state directory, one harness: a second is refused and told who holds
// it, until the first closes.
func TestStateDirectoryLocked(t *testing.T) {
	h, _ := newLocal(t, model.NewScripted(model.DemoPlan(nil)), "")
	_, err := New(context.Background(), Options{Config: h.cfg, Model: model.NewScripted(model.DemoPlan(nil))})
	var locked *StateLockedError
	if !errors.As(err, &locked) {
		t.Fatalf("a second harness on one state directory: %v; want a StateLockedError", err)
	}
	host, _ := os.Hostname()
	for _, want := range []string{fmt.Sprintf("pid %d on host %s since ", os.Getpid(), host), h.cfg.StateDir, "--state"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := New(context.Background(), Options{Config: h.cfg, Model: model.NewScripted(model.DemoPlan(nil))})
	if err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
	again.Close()
}
