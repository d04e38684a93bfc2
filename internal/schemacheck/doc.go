// Package schemacheck checks a tool call's arguments against the tool's input
// schema and reports every problem, each with the JSON pointer of the value at
// fault, so that a model can fix all of them in one retry.
//
// Both sides of the wire check arguments: the server before a tool runs
// (server/), and the harness before it sends a call a model asked for
// (harness/tools). This package is the one implementation they share. It
// imports nothing of the project, so the harness gets it without linking the
// server's protocol engine.
//
//	s, err := schemacheck.Compile("read_file", inputSchema) // once per tool
//	inst, perr := schemacheck.Parse(args)                  // once per call
//	for _, v := range s.Check(args, inst, perr) { ... v.Pointer, v.Message ... }
//
// Schemas are loaded from memory only: a $ref to anything outside the schema
// is refused rather than fetched.
//
// The validator is internal/jsonschema, a fork of
// github.com/santhosh-tekuri/jsonschema/v6 that compiles a draft's
// meta-schemas when a schema of that draft is first compiled rather than at
// package init, so that linking this package costs a program nothing at start.
package schemacheck
