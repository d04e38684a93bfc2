// Package layering holds the test that keeps the project's import graph in
// the shape docs/design.md draws: which package may import which. It has
// no code of its own.
package layering
