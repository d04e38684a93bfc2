package server

import (
	"fmt"
	"strings"
	"time"
)

// Effect says what calling a tool can do to the world. It decides the
// annotations every host sees, and it is what an operator reads first.
type Effect string

const (
	// ReadOnly tools observe and never change anything.
	ReadOnly Effect = "read_only"
	// Write tools change state in a way that can be reviewed and undone
	// (for example, storing a proposal).
	Write Effect = "write"
	// Destructive tools change state in a way that may overwrite or lose
	// something (for example, moving a branch).
	Destructive Effect = "destructive"
)

func (e Effect) valid() bool { return e == ReadOnly || e == Write || e == Destructive }

// Tool describes a tool to register. Name, Description and Effect are
// required; everything else has a sensible default.
type Tool struct {
	// Name is the tool's wire name: 1 to 64 characters from [a-z0-9_].
	Name string
	// Title is a short human-readable name.
	Title string
	// Description tells a model when and how to use the tool.
	Description string
	// Effect is the tool's side effect class.
	Effect Effect
	// OpenWorld reports that the tool reaches beyond the workspaces the
	// operator configured (a network service, say).
	OpenWorld bool
	// Idempotent reports, for Write and Destructive tools, that repeating a
	// call with the same arguments has no further effect. ReadOnly tools are
	// always idempotent.
	Idempotent bool
	// Family is the toolset the tool belongs to (for example "read" or
	// "apply"): operators serve or hide families as a whole (see
	// [Options.Families]). Empty means the tool is served whatever the
	// operator chose.
	Family string
	// Action is the authorization action the call needs (for example "read"
	// or "apply"). It is passed to the server's Authorize hook. Empty means
	// the tool needs no authorization beyond being listed.
	Action string
	// Timeout bounds each call; zero means the server's default.
	Timeout time.Duration
	// MaxResultBytes bounds the size of each result; zero means the server's
	// default.
	MaxResultBytes int
	// Comments maps Go identifiers to doc comments, as
	// [github.com/invopop/jsonschema.Reflector.CommentMap] expects them
	// ("import/path.Type" and "import/path.Type.Field"). Descriptions given in
	// struct tags take precedence.
	Comments map[string]string
	// Errors lists the classes of the errors the handler returns itself
	// (not_found, precondition_failed, ...). The framework returns
	// invalid_input (arguments the schema refuses), transient (a call over
	// its time limit or its caller's quota) and internal for every tool, and
	// permission_denied for one with an Action. The description the client
	// sees ends by naming them all, so that a model knows which isError
	// results to expect.
	Errors []Class
}

// annotations are the MCP tool annotations of a tool, always all set.
type annotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

func (t *Tool) annotations() annotations {
	return annotations{
		ReadOnly:    t.Effect == ReadOnly,
		Destructive: t.Effect == Destructive,
		Idempotent:  t.Effect == ReadOnly || t.Idempotent,
		OpenWorld:   t.OpenWorld,
	}
}

// validToolName reports whether name is 1-64 characters from [a-z0-9_],
// starting with a letter. A loop rather than a regular expression: {0,63}
// compiled at package init cost every process start more than all its
// other package variables.
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for _, c := range []byte(name) {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

func (t *Tool) check() error {
	switch {
	case !validToolName(t.Name):
		return fmt.Errorf("tool name %q: want 1-64 characters from [a-z0-9_], starting with a letter", t.Name)
	case t.Description == "":
		return fmt.Errorf("tool %s: a description is required", t.Name)
	case !t.Effect.valid():
		return fmt.Errorf("tool %s: effect %q: want %q, %q or %q", t.Name, t.Effect, ReadOnly, Write, Destructive)
	case t.Timeout < 0 || t.MaxResultBytes < 0:
		return fmt.Errorf("tool %s: negative timeout or result bound", t.Name)
	}
	for _, c := range t.Errors {
		if !c.Valid() {
			return fmt.Errorf("tool %s: error class %q is not one of the framework's", t.Name, c)
		}
	}
	return nil
}

// errorClasses is the order classes are named in descriptions.
var errorClasses = []Class{InvalidInput, PermissionDenied, NotFound, PreconditionFailed, Transient, Internal}

// wireDescription is the description clients see: Description, then the
// classes of the errors the tool can end with (see Tool.Errors).
func (t *Tool) wireDescription() string {
	can := map[Class]bool{InvalidInput: true, Transient: true, Internal: true, PermissionDenied: t.Action != ""}
	for _, c := range t.Errors {
		can[c] = true
	}
	var names []string
	for _, c := range errorClasses {
		if can[c] {
			names = append(names, string(c))
		}
	}
	return strings.TrimRight(t.Description, "\n") + "\n\nErrors: a failed call is a result with isError whose text starts with its class: " +
		strings.Join(names, ", ") + ". Only transient is worth retrying as is."
}
