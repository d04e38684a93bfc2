package gonav

import (
	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Register adds go_navigate, of family navigate, to s, reading through
// reg, unless s does not serve the family. What it keeps (a temporary
// export directory) is released at s.Close.
func Register(s *server.Server, reg *workspace.Registry, opts Options) error {
	if !s.Serves(string(toolkit.FamilyNavigate)) {
		return nil
	}
	sv, err := New(reg, opts)
	if err != nil {
		return err
	}
	if err := sv.register(s); err != nil {
		sv.Close()
		return err
	}
	s.OnClose(sv.Close)
	return nil
}
