// Package tools builds the table of tools a model may call. For every
// allowlisted tool of every source it decides the effect (the operator's,
// made stricter by the server's annotations, never weaker), rebuilds the
// schema the model sees, hashes the definition and checks it against the
// pinned one, and gives it an alias the model can use.
//
//	table := tools.NewTable(tools.Options{DescriptionBytes: 1024})
//	err := table.Add(src.ID(), descriptors, cfgTools, pins)   // per source
//	entry, ok := table.Lookup(alias)     // back to source and tool; never by splitting a name
//	violations := entry.Validate(args)   // before anything is sent
//
// Aliases are letters, digits, "_" and "-", at most 64 characters; when
// sanitizing or cutting changed a name, or two names would collide, a short
// hash of the internal name ("mcp.<server>.<tool>") is appended. The model
// only ever sees aliases; the table maps them back.
//
// A definition (name, description, input and output schema) is hashed;
// Pins keep the hashes a person approved, with the definitions, so that a
// changed definition disables its tool until it is approved again, and the
// difference can be shown.
package tools
