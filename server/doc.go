// Package server is a framework for MCP tools in Go. A tool is a Go
// function from an input struct to an output struct; the framework derives
// both JSON Schemas from the structs, validates every call's arguments
// before the function runs, turns its errors into results a model can act
// on, and records each call in an audit log. Tool packages use only this
// package; the protocol engine underneath (the official go-sdk) stays
// inside it.
//
// # Registering a tool
//
//	type ReadIn struct {
//		Path string `json:"path" jsonschema:"description=File path\\, relative to the root.,maxLength=4096"`
//		Max  int    `json:"max_bytes,omitempty" jsonschema:"minimum=1"`
//	}
//	type ReadOut struct {
//		Size int `json:"size"`
//	}
//
//	s := server.New(server.Info{Name: "files", Version: "v1"}, server.Options{})
//	err := server.Register(s, server.Tool{
//		Name:        "read_file",
//		Description: "Reads a file.",
//		Effect:      server.ReadOnly,
//		Action:      "read",
//	}, func(ctx context.Context, req *server.Request, in ReadIn) (ReadOut, error) {
//		...
//		return ReadOut{}, server.Errorf(server.NotFound, "no file %q", in.Path)
//	})
//
// Register refuses types whose schema would not constrain a model (fields
// without json tags, any, functions, channels, recursive types). Schemas
// are inline and closed (additionalProperties false); fields without
// omitempty are required.
//
// Descriptions come from jsonschema struct tags, in invopop's key=value
// form (`jsonschema:"description=...,maxLength=9"`) or in go-sdk's, where
// the whole tag is the description (`jsonschema:"Who to greet."`), and
// from Go doc comments. A binary has no source beside it, so the comments
// are generated into the package at go generate time by
// server/cmd/gencomments, which any module can run:
//
//	//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments
//
// It writes comments_gen.go with a goComments function; pass its result as
// [Tool.Comments]. A model knows fields by their JSON names, so a comment
// that begins with the Go name ("IncludeTests includes ...") gets the JSON
// name there ("include_tests includes ...").
//
// Deriving the schemas is most of what registering costs a new process.
// A program that starts often can derive them once, at go generate time:
// register its tools on a server made without [Options.Schemas], write
// what [Server.Schemas] returns into its source, and pass that to [New]
// from then on (repo-mcp's `schemas --go` does). Register uses such a
// tool's schemas while a digest of its types, tags and comments still
// matches theirs, and derives them again when it does not.
//
// # Serving over stdio
//
// A host starts the server as a subprocess and speaks MCP on its stdin
// and stdout. [TakeStdout] keeps a stray print from corrupting the stream;
// call it first, then serve until stdin ends (see the stdio example):
//
//	protocol, err := server.TakeStdout()
//	...
//	err = s.Serve(ctx, os.Stdin, protocol)
//
// # What happens to a call
//
// Transports (stdio with [Server.Serve], Streamable HTTP with
// [Server.HTTPHandler]) hand each tools/call to one chain of middleware,
// defined in one place (see middleware.go):
//
//	audit -> recover -> validate -> authorize -> limit -> Options.Middleware -> timeout -> bound -> decode and call
//
// Validation reports every problem at once, each with its JSON pointer, in
// one result with isError set, and refuses duplicate keys and keys that
// differ from a property only in case. A handler's [*Error] becomes a
// result whose text starts with its [Class] ("not_found: ..."), with the
// same facts under the result's _meta key [MetaError]. Any other error, or
// a panic, becomes an internal error with a trace id that is also in the
// log; its text stays in the server. Every call has a request_id (the
// caller's, or a generated one) echoed in the structured result, the
// result's _meta and every log line of the call.
//
// [Request.Caller] is who the call is for: [Options.Caller] over stdio,
// and over HTTP either the same or, with [HTTPOptions.Auth], the user of
// the request's bearer token; a request without a token the verifier
// accepts is refused with 401 before it reaches the engine. Package
// server/oauth supplies the verifier for OAuth access tokens, and the
// metadata that leads clients to their issuer.
//
// Unknown tools and malformed messages are JSON-RPC errors (-32602,
// -32600, -32700); the stdio frame guard answers malformed and oversized
// frames itself and keeps serving, and no error with code 0 is ever sent.
//
// A result of more than a few hundred bytes is encoded once, by the
// framework, and spliced into the response go-sdk encodes around it, whose
// own encoding of a result validates and compacts every byte several
// times (see prepared.go). Tools need do nothing for it; [Texter] lets a
// large output render its text itself and leave it out of the structured
// result, [TextPiecer] lets it give that text as pieces it already holds
// (a page of a file), which are escaped straight into the answer and
// written without being copied into the frame, and [JSONAppender] lets it
// encode its structured result without reflection (a page of 10 000
// listed files).
//
// # Progress
//
// A call that takes more than a few seconds reports how far it has come
// with [Request.Progress]. When the client put a progress token in the
// request, the reports become notifications/progress (throttled to four a
// second, the last one sent before the result, only increasing values);
// over HTTP the response is then an SSE stream that carries them. Without
// a token reporting costs nothing. Clients such as the TypeScript SDK's
// give up on a request after a timeout (60 s by default) unless progress
// arrives, so a tool that can run for minutes should report at least
// every few seconds.
//
// # Asking the person behind the client
//
// A tool that needs a person's confirmation returns [Ask] with its
// questions; the framework carries them as the session allows (an
// input_required result in 2026-07-28, an elicitation request in legacy
// sessions), and the handler runs again with [Request.Answer] and the state
// it saved ([Request.State], sealed and bound to the call's caller and
// arguments).
// [Request.CanAsk] says whether the client declared it can be asked.
//
// # Protocol eras
//
// The server speaks 2026-07-28 (server/discover, per-request _meta,
// stateless) and the legacy initialize handshake (2025-11-25 back to
// 2024-11-05) on the same stream, as go-sdk provides. It declares the tools
// capability, and resources once a [ResourceTemplate] is added: the parts
// of results a person can see whole, which results name through [Linker].
//
// # Testing tools
//
// Package servertest runs a server in the test process and calls its tools
// through the real protocol path.
package server
