package gonav

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/token"

	"golang.org/x/tools/go/gcexportdata"
)

// A package's key covers its files and its direct dependencies' API
// keys, not their whole keys: an edit inside a function body, or of
// anything a package does not export, changes the package's key but not
// its API key, so its importers are not checked again (early cutoff).
//
// An API key is a hash of the package's export data (its exported
// declarations and everything they reach, positions included) and of its
// dependencies' API keys. Equal API keys mean importers see the same
// declarations at the same lines and columns, so the importers' units
// checked against the earlier package stay valid. Importers import the
// unit's api package, which is shared by every unit with the same API
// key: a program's packages then see one universe of types, however many
// revisions their units were checked in.

// keyOf returns a node's key; its dependencies are done.
func keyOf(n *node) string {
	h := sha256.New()
	h.Write(n.files)
	for _, d := range n.deps {
		fmt.Fprintf(h, "dep\x00%s\x00%s\x00", d.lp.ImportPath, d.unit.apiKey)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// apiKeyOf returns a checked unit's API key. Only the repository's
// packages are exported to compute it: the others' files do not change
// under a key, so their key serves.
func apiKeyOf(fset *token.FileSet, u *unit, deps []*node) string {
	h := sha256.New()
	fmt.Fprintf(h, "api\x00%s\x00", u.id)
	var data bytes.Buffer
	if !u.local || u.types == nil || gcexportdata.Write(&data, fset, u.types) != nil {
		fmt.Fprintf(h, "key\x00%s\x00", u.key)
		return hex.EncodeToString(h.Sum(nil))
	}
	sum := sha256.Sum256(data.Bytes())
	fmt.Fprintf(h, "export\x00%x\x00", sum)
	for _, d := range deps {
		fmt.Fprintf(h, "dep\x00%s\x00%s\x00", d.lp.ImportPath, d.unit.apiKey)
	}
	return hex.EncodeToString(h.Sum(nil))
}
