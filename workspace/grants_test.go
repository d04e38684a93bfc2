package workspace

import "testing"

// TestGrants checks Grants against the Authorize verdicts of the same
// policies: an action is granted when some workspace lets it through, and
// apply never is in a read-only workspace.
func TestGrants(t *testing.T) {
	reg := openPolicyRegistry(t)
	for _, tc := range []struct {
		identity string
		action   Action
		want     bool
	}{
		{"alice", ActionRead, true},
		{"alice", ActionSearch, true},
		{"alice", ActionPropose, false},
		{"bob", ActionPropose, true},
		{"bob", ActionApply, false}, // granted, but the only workspace is read-only
		{"bob", ActionRead, false},
		{"mallory", ActionRead, false},
	} {
		if got := reg.Grants(tc.identity, tc.action); got != tc.want {
			t.Errorf("Grants(%s, %s) = %v, want %v", tc.identity, tc.action, got, tc.want)
		}
	}
}
