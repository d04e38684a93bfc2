package searchsymbol

import "github.com/repo-mcp/repo-mcp/server"

// Register adds search_symbol to s, for tests that serve one service to
// several servers (one per identity).
func (sv *Service) Register(s *server.Server) error { return sv.register(s) }
