package verify

import (
	"fmt"
	"slices"
	"strings"
)

// Property is one isolation property of the sandbox checks run in. A
// report claims one only when the run's probe saw it hold.
type Property string

const (
	// UID: checks run as an unprivileged uid (Options.UID), not root and
	// not the server's, with no capability in the server's namespaces.
	UID Property = "uid"
	// Filesystem: checks run in their own mount namespace that shows only
	// the export (a private copy), the Go toolchain, the module cache and
	// the shared build cache read-only, and a private size-limited tmpfs;
	// no host path, no workspace, no .git, no server state.
	Filesystem Property = "filesystem"
	// PID: checks run in their own PID namespace: no signal reaches a
	// process outside it, and every process in it dies with the check.
	PID Property = "pid"
	// Network: checks run in their own network namespace whose only
	// interface is loopback, up (127.0.0.1 and ::1 work; nothing else is
	// reachable, abstract Unix sockets included).
	Network Property = "network"
	// Limits: the process count, address space, CPU time, file size and
	// disk (the tmpfs) of a check are bounded.
	Limits Property = "limits"
)

// Properties lists every isolation property, in the order reports use.
var Properties = []Property{UID, Filesystem, PID, Network, Limits}

// ParseProperties parses an operator's comma-separated list of
// properties ("all" for every one), as --verify-unconfined takes it.
func ParseProperties(s string) ([]Property, error) {
	var ps []Property
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case f == "all":
			ps = append(ps, Properties...)
		case slices.Contains(Properties, Property(f)):
			ps = append(ps, Property(f))
		default:
			return nil, fmt.Errorf("unknown isolation property %q (known: %s, all)", f, joinProps(Properties))
		}
	}
	slices.Sort(ps)
	return slices.Compact(ps), nil
}

func joinProps(ps []Property) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = string(p)
	}
	return strings.Join(s, ", ")
}

// Isolation says which isolation properties a run had. Each is true only
// when the probe of every check of the run saw it hold.
type Isolation struct {
	UID        bool
	Filesystem bool
	PID        bool
	Network    bool
	Limits     bool
	// Unconfined lists the properties the checks ran without because the
	// operator allowed it (Options.Unconfined).
	Unconfined []Property
	// Notes say why a property did not hold.
	Notes []string
}

// Holds reports whether the run had property p.
func (iso Isolation) Holds(p Property) bool {
	switch p {
	case UID:
		return iso.UID
	case Filesystem:
		return iso.Filesystem
	case PID:
		return iso.PID
	case Network:
		return iso.Network
	case Limits:
		return iso.Limits
	}
	return false
}

func (iso *Isolation) set(p Property, v bool) {
	switch p {
	case UID:
		iso.UID = v
	case Filesystem:
		iso.Filesystem = v
	case PID:
		iso.PID = v
	case Network:
		iso.Network = v
	case Limits:
		iso.Limits = v
	}
}

// probeReport is what a check's probe found: the properties that held, and
// why each other one did not.
type probeReport struct {
	Held   []Property          `json:"held"`
	Failed map[Property]string `json:"failed,omitempty"`
}

func (r *probeReport) fail(p Property, format string, args ...any) {
	if r.Failed == nil {
		r.Failed = map[Property]string{}
	}
	if _, ok := r.Failed[p]; !ok {
		r.Failed[p] = fmt.Sprintf(format, args...)
	}
}

// merge folds the probe of one check into the run's isolation: a property
// holds for the run only when it held for every check.
func (iso *Isolation) merge(first bool, r probeReport, unconfined []Property) {
	for _, p := range Properties {
		held := slices.Contains(r.Held, p) && r.Failed[p] == ""
		if first {
			iso.set(p, held)
		} else {
			iso.set(p, iso.Holds(p) && held)
		}
		if why := r.Failed[p]; why != "" {
			note := fmt.Sprintf("%s: %s", p, why)
			if !slices.Contains(iso.Notes, note) {
				iso.Notes = append(iso.Notes, note)
			}
			if slices.Contains(unconfined, p) && !slices.Contains(iso.Unconfined, p) {
				iso.Unconfined = append(iso.Unconfined, p)
			}
		}
	}
}

// missing lists the required properties a probe did not see hold.
func (r probeReport) missing(unconfined []Property) []Property {
	var miss []Property
	for _, p := range Properties {
		if slices.Contains(unconfined, p) {
			continue
		}
		if !slices.Contains(r.Held, p) || r.Failed[p] != "" {
			miss = append(miss, p)
		}
	}
	return miss
}

// RefusedError says a check did not run because the sandbox lacked
// properties the operator did not allow it to run without.
type RefusedError struct {
	Missing []Property
	Why     []string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused to run: the sandbox lacks %s (%s); an operator may allow running without it (--verify-unconfined=%s)",
		joinProps(e.Missing), strings.Join(e.Why, "; "), joinProps(e.Missing))
}
