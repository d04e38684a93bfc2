//go:build !unix

package workspace

import "github.com/repo-mcp/repo-mcp/server"

func (w *Workspace) lockApply() (func(), error) {
	return nil, server.Errorf(server.PermissionDenied, "applying to the working tree is not supported on this platform")
}
