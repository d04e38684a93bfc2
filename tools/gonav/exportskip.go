package gonav

import "path"

// go_navigate's exports leave out the testdata directories. Nothing the
// load does reads them: go list matches no package in them, and, not
// asked for the files a package embeds (listFields), does not resolve
// //go:embed patterns, which may name testdata; go/types reads Go files
// only. Creating files is most of an export's cost, and a third of the Go
// tree's files are in testdata (a file system that has just deleted many
// files, as a benchmark's or a test's clean-up does, creates new ones
// slowly). A package in a testdata directory imported by its path is
// then missing, as it is from every ./... pattern.

// skipRule names the rule in the export's key.
const skipRule = "go_navigate: no testdata, v1"

// isTestdata reports whether an export entry is a testdata directory.
func isTestdata(p string, isDir bool) bool { return isDir && path.Base(p) == "testdata" }
