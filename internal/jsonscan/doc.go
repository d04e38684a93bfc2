// Package jsonscan reads JSON-RPC frames and other JSON texts in one pass
// over their bytes, without building values for what the reader skips. It is
// the one JSON scanner of the project: the MCP client (client/) reads every
// frame and tools/call result with it, the server (server/) splices request
// metadata into frames and finds the id of an oversized frame with it, and the
// harness bounds a server's schemas with it before decoding them.
//
// A Scanner checks syntax exactly as encoding/json does while it reads:
//
//	s := jsonscan.NewScanner(frame)
//	ok := s.Object(func(key []byte) bool {
//		if jsonscan.KeyIs(key, "id") {
//			id, ok = s.Raw()
//			return ok
//		}
//		return s.Skip()
//	}) && s.End()
//
// Members iterates the members of an object, and also those of an object
// cut short (the head of an oversized frame) as far as they are complete.
// The package imports nothing of the project.
package jsonscan
