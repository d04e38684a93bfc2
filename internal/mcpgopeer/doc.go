// Package mcpgopeer tests repo-mcp against mark3labs/mcp-go, a client that
// hosts build on and that nobody on this project wrote. It is a module of
// its own so that mcp-go, a test-only peer, stays out of the product's
// dependency graph; test.sh runs its tests.
package mcpgopeer
