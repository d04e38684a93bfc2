package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/harness/config"
	"github.com/repo-mcp/repo-mcp/harness/source"
	"github.com/repo-mcp/repo-mcp/internal/schemacheck"
)

// Entry is one allowlisted tool.
type Entry struct {
	Alias       string          // the name the model sees
	Source      string          // source id
	Tool        string          // the name in the source
	Effect      config.Effect   // what the harness treats it as
	Configured  config.Effect   // what the operator configured
	Mismatch    string          // annotations that disagree with the configuration
	Description string          // cleaned, capped
	Schema      json.RawMessage // rebuilt input schema
	Definition  string          // hash of the source's definition
	Raw         json.RawMessage // canonical definition
	Policy      *config.Tool
	// Disabled says why the model does not see the tool; empty when it does.
	Disabled string
	// Pending is set while a new or changed definition waits for a person.
	Pending *Pending

	schema         *schemacheck.Schema
	takesRequestID bool
}

// Internal is the entry's "<source>.<tool>" name.
func (e *Entry) Internal() string { return Internal(e.Source, e.Tool) }

// TakesRequestID reports whether the rebuilt schema has a request_id
// property, which the harness fills in when the model leaves it out.
func (e *Entry) TakesRequestID() bool { return e.takesRequestID }

// Validate checks arguments against the rebuilt schema.
func (e *Entry) Validate(args json.RawMessage) []Violation {
	if e.schema == nil {
		return []Violation{{Message: "the tool has no usable schema"}}
	}
	return validate(e.schema, args)
}

// Pending is a definition that needs a person's approval.
type Pending struct {
	Source string `json:"source"`
	Tool   string `json:"tool"`
	Kind   string `json:"kind"` // "new" or "changed"
	Hash   string `json:"hash"`
	Old    string `json:"old,omitempty"`
	Diff   string `json:"diff"`
}

// Problem is an allowlisted tool the table could not offer.
type Problem struct {
	Source, Tool, Reason string
}

// Options configure a table.
type Options struct {
	DescriptionBytes int
}

// Table maps aliases to tools. Its methods are safe for concurrent use; the
// entries they return are never modified afterwards.
type Table struct {
	opts     Options
	mu       sync.Mutex
	byAlias  map[string]*Entry
	problems []Problem
	unlisted map[string]unlisted // by tool name and by would-be alias
}

// NewTable returns an empty table.
func NewTable(opts Options) *Table {
	if opts.DescriptionBytes <= 0 {
		opts.DescriptionBytes = config.DefaultDescriptionBytes
	}
	return &Table{opts: opts, byAlias: map[string]*Entry{}, unlisted: map[string]unlisted{}}
}

// Add adds the allowlisted tools of one source. pins is nil for a source
// the harness trusts (its own); otherwise each definition must match its
// pin, or be pinned now when approve is config.ApproveFirstUse.
func (t *Table) Add(src string, descs []source.Descriptor, allow map[string]*config.Tool, pins *Pins, approve string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	offered := make(map[string]source.Descriptor, len(descs))
	for _, d := range descs {
		offered[d.Name] = d
		if _, ok := allow[d.Name]; !ok {
			// Not offered to the model; kept so that a call to it by
			// name is audited with its source.
			t.unlisted[d.Name] = unlisted{src, d.Name}
			t.unlisted[aliasBase(src, d.Name)] = unlisted{src, d.Name}
		}
	}
	names := make([]string, 0, len(allow))
	for name := range allow {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		d, ok := offered[name]
		if !ok {
			t.problems = append(t.problems, Problem{src, name, "allowlisted but not offered by the source"})
			continue
		}
		e, err := t.entry(src, d, allow[name])
		if err != nil {
			return err
		}
		if pins != nil {
			if err := checkPin(e, pins, approve); err != nil {
				return err
			}
		}
		t.byAlias[e.Alias] = e
	}
	return nil
}

func (t *Table) entry(src string, d source.Descriptor, policy *config.Tool) (*Entry, error) {
	raw, hash := Definition(d)
	e := &Entry{
		Source: src, Tool: d.Name, Policy: policy, Raw: raw, Definition: hash,
		Configured:  policy.EffectOrDefault(),
		Description: CleanText(d.Description, t.opts.DescriptionBytes),
	}
	e.Effect = e.Configured
	if hint := hinted(d.Annotations); hint != "" {
		e.Effect = e.Configured.Stricter(hint)
		if hint != e.Configured {
			e.Mismatch = fmt.Sprintf("annotations say %s, configuration says %s; treated as %s", hint, e.Configured, e.Effect)
		}
	}
	e.Alias = alias(aliasBase(src, d.Name), e.Internal(), func(a string) bool { _, taken := t.byAlias[a]; return taken })
	schema, err := RebuildSchema(d.InputSchema, t.opts.DescriptionBytes)
	if err == nil {
		e.Schema, e.takesRequestID = schema, hasProperty(schema, "request_id")
		e.schema, err = schemacheck.Compile(e.Alias, schema)
	}
	if err != nil {
		e.Disabled = "unusable input schema: " + err.Error()
	}
	return e, nil
}

// aliasBase is what a tool's alias is made from: "<server>_<tool>" for an
// MCP source's tool, the tool's name for the harness's own.
func aliasBase(src, tool string) string {
	if server, ok := strings.CutPrefix(src, "mcp."); ok {
		return server + "_" + tool
	}
	return tool
}

// unlisted is a tool a source offers that the allowlist leaves out.
type unlisted struct{ source, tool string }

// Unlisted returns the source and tool a name the model used refers to when
// it is no allowlisted tool: the source offering a tool by that name or by
// the alias it would have had; when none does, "" and the name as given.
func (t *Table) Unlisted(name string) (src, tool string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if u, ok := t.unlisted[name]; ok {
		return u.source, u.tool
	}
	return "", name
}

func checkPin(e *Entry, pins *Pins, approve string) error {
	pin, ok, err := pins.Get(e.Source, e.Tool)
	switch {
	case err != nil:
		return err
	case ok && pin.Hash == e.Definition:
		return nil
	case ok:
		e.Pending = &Pending{Source: e.Source, Tool: e.Tool, Kind: "changed", Hash: e.Definition, Old: pin.Hash, Diff: Diff(pin.Definition, e.Raw)}
	case approve == config.ApproveFirstUse:
		return pins.Set(e.Source, e.Tool, Pin{Hash: e.Definition, Definition: e.Raw, By: "first_use", At: time.Now().UTC()})
	default:
		e.Pending = &Pending{Source: e.Source, Tool: e.Tool, Kind: "new", Hash: e.Definition, Diff: Diff(nil, e.Raw)}
	}
	if e.Disabled == "" {
		e.Disabled = "definition " + e.Pending.Kind + " since approval; a person must approve it"
	}
	return nil
}

// hinted is the effect a server's annotations claim, or "" when they claim
// nothing. Only explicit hints count.
func hinted(a *source.Annotations) config.Effect {
	if a == nil {
		return ""
	}
	is := func(b *bool) bool { return b != nil && *b }
	isNot := func(b *bool) bool { return b != nil && !*b }
	var e config.Effect
	switch {
	case is(a.ReadOnly):
		e = config.ReadOnly
	case is(a.Destructive):
		e = config.Destructive
	case isNot(a.ReadOnly) || isNot(a.Destructive):
		e = config.Write
	}
	if is(a.OpenWorld) {
		e = e.Stricter(config.Network)
		if e == "" {
			e = config.Network
		}
	}
	return e
}

// Approve pins the pending definition of a source's tool with the given
// hash and enables the tool. It fails if the hash is not the pending one.
func (t *Table) Approve(pins *Pins, src, tool, hash, by string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for a, e := range t.byAlias {
		if e.Source != src || e.Tool != tool {
			continue
		}
		if e.Pending == nil {
			return fmt.Errorf("%s: no definition waits for approval", e.Internal())
		}
		if e.Pending.Hash != hash {
			return fmt.Errorf("%s: approval names definition %s; the pending one is %s", e.Internal(), hash, e.Pending.Hash)
		}
		if err := pins.Set(src, tool, Pin{Hash: hash, Definition: e.Raw, By: by, At: time.Now().UTC()}); err != nil {
			return err
		}
		// Entries are never changed once in the table: whoever holds the
		// old one keeps reading a consistent value.
		approved := *e
		approved.Pending = nil
		if strings.HasPrefix(approved.Disabled, "definition ") {
			approved.Disabled = ""
		}
		t.byAlias[a] = &approved
		return nil
	}
	return fmt.Errorf("%s: not an allowlisted tool", Internal(src, tool))
}

// Lookup returns the entry of an alias, offered or not.
func (t *Table) Lookup(alias string) (*Entry, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.byAlias[alias]
	return e, ok
}

// Entries returns every entry, sorted by alias.
func (t *Table) Entries() []*Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*Entry, 0, len(t.byAlias))
	for _, e := range t.byAlias {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *Entry) int { return strings.Compare(a.Alias, b.Alias) })
	return out
}

// Offered returns the entries the model sees, sorted by alias.
func (t *Table) Offered() []*Entry {
	var out []*Entry
	for _, e := range t.Entries() {
		if e.Disabled == "" {
			out = append(out, e)
		}
	}
	return out
}

// Pending returns the definitions waiting for approval.
func (t *Table) Pending() []Pending {
	var out []Pending
	for _, e := range t.Entries() {
		if e.Pending != nil {
			out = append(out, *e.Pending)
		}
	}
	return out
}

// Problems returns the allowlisted tools that no source offered.
func (t *Table) Problems() []Problem {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.problems)
}
