package workspace

// Scope is what one call names in the workspace layer's terms: a workspace
// and the paths it reads, lists or writes. A tool input declares it in its
// type (see [Scoped]), so that authorization before the call reads no
// argument by name.
type Scope struct {
	WorkspaceID string
	// Paths are the paths the call names: each is checked as a path the
	// caller may read, or a directory that may hold some. Globs and other
	// filters are not paths and are left out; the Snapshot applies the
	// policy to what they select.
	Paths []string
}

// WithPaths returns s naming paths too. Empty paths (the root, or an
// optional field left out) name nothing.
func (s Scope) WithPaths(paths ...string) Scope {
	out := s
	out.Paths = append([]string(nil), s.Paths...)
	for _, p := range paths {
		if p != "" {
			out.Paths = append(out.Paths, p)
		}
	}
	return out
}

// Scoped is a tool input that names a scope. The inputs of repository
// tools embed a struct that implements it with the workspace alone, and
// override Scope to add their path fields.
type Scoped interface {
	Scope() Scope
}

// AuthorizeScope checks, before any read, that identity may do action in
// the scope's workspace and on each of its paths. The Snapshot the tool
// then opens checks every path again, precisely.
func (r *Registry) AuthorizeScope(identity string, action Action, sc Scope) error {
	g, err := r.grant(Access{Identity: identity, Action: action}, sc.WorkspaceID)
	if err != nil {
		return err
	}
	for _, p := range sc.Paths {
		clean, err := CleanPath(p)
		if err != nil {
			return err
		}
		if err := g.checkPath(clean, true); err != nil {
			return err
		}
	}
	return nil
}
