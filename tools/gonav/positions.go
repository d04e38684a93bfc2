package gonav

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sync"
)

// Export data keeps an object's file and line but not its column: a
// package read back has every declaration at column 1. So the store
// writes export data with positions recoded: in the file set it gives
// the writer, each identifier of a file outside function bodies starts
// a line of its own, and the entry keeps the real line and column of
// each such line. Reading
// an entry registers the files the reader made with those tables, and
// the program's positions go through them.

// maxRecodedLines is the most lines a file read from export data can
// have (the reader's limit; a line past it reads as line 1).
const maxRecodedLines = 64 << 10

// lineCol is a real position of a recoded line.
type lineCol struct{ Line, Col int32 }

// recode returns a file set for the writer of a package's export data,
// and the tables that undo it, by file name.
func recode(fset *token.FileSet, files []*ast.File) (*token.FileSet, map[string][]lineCol, error) {
	type recoded struct {
		tf    *token.File
		lines []int
	}
	var all []recoded
	for _, f := range files {
		tf := fset.File(f.FileStart)
		offsets := []int{0}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				offsets = append(offsets, tf.Offset(n.Pos()))
			case *ast.BlockStmt:
				// A function's body declares nothing export data
				// holds: its lines would only fill the tables.
				return false
			}
			return true
		})
		slices.Sort(offsets)
		offsets = slices.Compact(offsets)
		if len(offsets) >= maxRecodedLines {
			return nil, nil, fmt.Errorf("%s has %d identifiers, more than export data's %d lines", tf.Name(), len(offsets), maxRecodedLines)
		}
		all = append(all, recoded{tf, offsets})
	}
	slices.SortFunc(all, func(a, b recoded) int { return a.tf.Base() - b.tf.Base() })
	out := token.NewFileSet()
	tables := map[string][]lineCol{}
	for _, r := range all {
		table := make([]lineCol, len(r.lines))
		for i, off := range r.lines {
			p := r.tf.Position(r.tf.Pos(off))
			table[i] = lineCol{int32(p.Line), int32(p.Column)}
		}
		tables[r.tf.Name()] = table
		if !out.AddFile(r.tf.Name(), r.tf.Base(), r.tf.Size()).SetLines(r.lines) {
			return nil, nil, fmt.Errorf("recoding the lines of %s failed", r.tf.Name())
		}
	}
	return out, tables, nil
}

// posTables holds the tables of the files read from export data, for
// positions in them.
type posTables struct {
	mu sync.RWMutex
	m  map[*token.File][]lineCol
}

// add registers the files a package read from export data declares its
// objects in.
func (t *posTables) add(fset *token.FileSet, pkg *types.Package, tables map[string][]lineCol) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = map[*token.File][]lineCol{}
	}
	reg := func(obj types.Object) {
		if tf := fset.File(obj.Pos()); tf != nil && t.m[tf] == nil {
			if table, ok := tables[tf.Name()]; ok {
				t.m[tf] = table
			}
		}
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		reg(obj)
		if tn, ok := obj.(*types.TypeName); ok {
			if n, ok := types.Unalias(tn.Type()).(*types.Named); ok {
				for m := range n.Methods() {
					reg(m)
				}
			}
		}
	}
}

// position returns the real position of pos.
func (t *posTables) position(fset *token.FileSet, pos token.Pos) token.Position {
	tf := fset.File(pos)
	if tf == nil {
		return token.Position{}
	}
	p := tf.Position(pos)
	t.mu.RLock()
	table := t.m[tf]
	t.mu.RUnlock()
	if p.Line >= 1 && p.Line <= len(table) {
		lc := table[p.Line-1]
		p.Line, p.Column = int(lc.Line), int(lc.Col)
	}
	return p
}
