package searchtext

import "github.com/repo-mcp/repo-mcp/server"

// Register adds search_text to s, for tests that serve one service to
// several servers (one per identity) and watch its builds.
func (sv *Service) Register(s *server.Server) error { return sv.register(s) }
