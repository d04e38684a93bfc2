package workspace

// Grants reports whether any policy grants identity the action in any
// workspace (for apply, any workspace that is not read-only): whether a
// call of a tool that needs the action could ever pass. Servers offer a
// caller only such tools.
func (r *Registry) Grants(identity string, action Action) bool {
	for id, ws := range r.workspaces {
		if action == ActionApply && ws.readOnly {
			continue
		}
		for _, p := range r.policies {
			if p.appliesTo(identity, id) && p.actions[action] {
				return true
			}
		}
	}
	return false
}
