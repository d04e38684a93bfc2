package toolkit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Family is a toolset: tools an operator serves or hides together (the
// server's [server.Tool.Family]). Every tool package sets one on each tool
// it registers, and registers in one shape:
//
//	func Register(s *server.Server, reg *workspace.Registry, opts Options) error
//
// where reg is nil when the tools are only listed (their handlers never
// run), and what the family holds past registration is released by
// s.Close ([server.Server.OnClose]).
type Family string

// The families, in the order an operator reads them.
const (
	FamilyRead     Family = "read"     // repository facts, files, directory listings
	FamilySearch   Family = "search"   // text and symbol search
	FamilyHistory  Family = "history"  // log, blame, diffs between revisions
	FamilyNavigate Family = "navigate" // Go definitions, references, types
	FamilyPropose  Family = "propose"  // generate and preview patches
	FamilyApply    Family = "apply"    // apply a previewed patch
	FamilyVerify   Family = "verify"   // run allowlisted checks on a patch
)

// Families returns every family, in order.
func Families() []Family {
	return []Family{FamilyRead, FamilySearch, FamilyHistory, FamilyNavigate, FamilyPropose, FamilyApply, FamilyVerify}
}

// ReadOnlyFamilies are the families whose tools change nothing: what
// --read-only serves.
func ReadOnlyFamilies() []Family {
	return []Family{FamilyRead, FamilySearch, FamilyHistory, FamilyNavigate}
}

// ParseFamilies parses a comma-separated list of families ("read,search");
// "all" stands for every family.
func ParseFamilies(list string) ([]Family, error) {
	var out []Family
	for name := range strings.SplitSeq(list, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "all":
			out = append(out, Families()...)
		case slices.Contains(Families(), Family(name)):
			out = append(out, Family(name))
		default:
			return nil, fmt.Errorf("unknown tool family %q (want some of %s, or all)", name, familyList())
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func familyList() string {
	var names []string
	for _, f := range Families() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// Names returns the families as the server's [server.Options.Families]
// takes them.
func Names(fs []Family) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out
}

// Visible returns the server's [server.Options.Visible] hook: a caller is
// offered a tool when some policy grants it the tool's action in some
// workspace, so that a read-only identity is never offered apply_patch.
// Tools that need no action are offered to everyone.
func Visible(reg *workspace.Registry) func(caller string, t server.Tool) bool {
	return func(caller string, t server.Tool) bool {
		return t.Action == "" || reg.Grants(caller, workspace.Action(t.Action))
	}
}
