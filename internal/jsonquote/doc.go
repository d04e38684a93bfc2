// Package jsonquote writes strings as JSON string literals, byte for byte as
// encoding/json writes them, without reflection and fast where it matters:
// a page of a file, a megabyte of source code whose escapes (tabs,
// newlines, quotes) come every few bytes.
//
//	b = jsonquote.Append(b, s)           // as json.Marshal(s)
//	b = jsonquote.AppendText(b, s)       // as an Encoder with SetEscapeHTML(false)
//
// A string given in pieces (a header, a page, a note) is quoted once, into
// one literal: open it with a quote, append each piece with AppendEscaped,
// close it with a quote. Each piece must end on a character boundary, as
// invalid UTF-8 is replaced character by character.
//
// Runs of bytes that need no escape are found and written eight bytes at a
// time, a word at a time into room made beforehand, rather than each run
// copied by a call; the output is compared with encoding/json's by the
// tests and by fuzzing. The package imports nothing of the project.
package jsonquote
