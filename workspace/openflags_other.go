//go:build !unix

package workspace

// openNoFollow has no portable equivalent here; the identity check after
// opening still refuses a file that changed.
const openNoFollow = 0
