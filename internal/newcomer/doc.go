// Package newcomer holds the test of a newcomer's first hour with the
// project: README's commands, run as a newcomer runs them, from a fresh
// clone and from a folder that is not a repository, through the binaries
// go install builds. Its transcript, testdata/first-hour.txtar, is what
// they see; go test -update rewrites it. It has no code of its own.
package newcomer
