//go:build !unix

package workspace

import "github.com/repo-mcp/repo-mcp/errclass"

func (w *Workspace) lockApply() (func(), error) {
	return nil, errclass.Errorf(errclass.PermissionDenied, "applying to the working tree is not supported on this platform")
}
