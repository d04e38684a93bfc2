package gonav

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/tools/go/gcexportdata"

	"github.com/repo-mcp/repo-mcp/internal/atomicfile"
)

// typesDirName is the directory, under the cache directory, of the
// packages' type information; its version changes with the format.
const typesDirName = "types-v6"

// typeStore keeps on disk the type information of packages by key: a
// new process or a replica reads them instead of parsing and checking
// them again. The packages outside the repository (GOROOT's and the
// module cache's) are kept as export data; the repository's, with their
// indexes too (see unitIndex), which is what queries read of them.
//
// A process that checks a dependency keeps it as an entry too, and
// reads it back in place of the check's types: export data holds what
// importers and queries use of a dependency, in less memory than the
// check's objects, and a process then answers the same whether it
// checked a dependency or read it.
//
// An entry is written to a temporary file and renamed into place, so a
// reader sees a whole entry or none; processes and replicas sharing the
// directory write the same bytes under a key, so the last rename wins
// harmlessly. Entries are written in the background, at most
// maxWriters at once (a load waits for the disk only when that many are
// being written, which bounds the memory they hold), and Close waits for
// the writes.
type typeStore struct {
	dir     string // "" keeps nothing
	writers chan struct{}
	pending sync.WaitGroup // the entries being written
	builds  sync.WaitGroup // the background builds writing more (indexInBackground)
	log     *slog.Logger
	bufs    sync.Pool // of *[]byte, for reading entries (see open)
}

// maxWriters bounds the entries written at once.
const maxWriters = 2

func newTypeStore(dir string, log *slog.Logger) *typeStore {
	return &typeStore{dir: dir, writers: make(chan struct{}, maxWriters), log: log}
}

// storedUnit is an entry: the package's export data, and what the
// export data loses of its positions.
type storedUnit struct {
	// Key is the key the entry is stored under: an entry found under
	// another is a foreign or misplaced file (see check).
	Key       string
	Problems  []string
	FileNames []string
	// Export is gcexportdata's, written with positions recoded so that
	// each identifier of a file is a line of its own (positions.go).
	Export []byte
	// Hidden is the export data of the package's unexported types,
	// which export data leaves out but implementations names (see
	// hiddenTypes); empty when there are none.
	Hidden []byte
	// Files are the tables that decode their positions, by file name.
	Files map[string][]lineCol
	// APIKey is a repository package's API key (see cutoff.go), which
	// its export data here cannot give again: its positions are
	// recoded. Empty for the others, whose key serves.
	APIKey string
	// Names are the names the package declares at package level, each
	// between newlines: what a symbol's lookup finds in it is among them
	// (see unit.mayDeclare), so a lookup of another name leaves its
	// export data undecoded.
	Names string
	// Index is what queries read of a repository package checked in
	// full (see unitIndex); nil for the others, and when the entry was
	// read without it: hasIndex then says it has one.
	Index    *unitIndex
	hasIndex bool
}

// indexed reports whether the entry has an index, read or not.
func (e *storedUnit) indexed() bool { return e.Index != nil || e.hasIndex }

// hiddenPrefix starts the path of the package hiddenTypes makes.
const hiddenPrefix = "gonav.hidden/"

// read returns the unit of a package from the store (unsafe from
// go/types), or nil. Its types are decoded when first asked for (see
// lazytypes.go).
func (l *loader) read(n *node) *unit {
	u := newUnit(n)
	if u.path == "unsafe" {
		u.t, u.apiKey = unitTypes{types: types.Unsafe, api: types.Unsafe}, "unsafe"
		return u
	}
	e, release, err := l.store.open(n.key, false)
	defer release()
	if err == nil && e != nil {
		err = e.fits(n)
	}
	if err != nil {
		l.log.Warn("go_navigate: a package's type information on disk is damaged; checking it again", "package", u.id, "error", err)
		return nil
	}
	if e == nil {
		return nil
	}
	u.problems, u.fileNames, u.names = e.Problems, e.FileNames, e.Names
	if n.local {
		u.apiKey = e.APIKey
		if n.full {
			u.setIndexer(func(ctx context.Context) (*unitIndex, error) { return l.readIndex(ctx, n, u) })
		}
	} else {
		u.apiKey = apiKeyOf(l.fset, u, n.deps) // of its key: no types needed
	}
	u.decodeLater(func() unitTypes { return l.readTypes(n, u) })
	return u
}

// keep stores a checked package, and replaces its types by those read
// back from the entry (see typeStore), as a process reading the entry
// does. A repository package's index, built later (checkBodies), then
// finds its objects in them (see resolveLater), so nothing refers to the
// check's objects, scopes and syntax, which were most of a loaded
// program's memory: a load holds the checks of the packages being
// checked only, however many it checked. On a failure the check's types
// and objects stay. It sets the unit's API key (see cutoff.go).
//
// ix is the unit's index, when it is built as it is checked. The entry
// of a package to be checked in full holds its index: without one, it is
// not written here, but by checkBodies.
func (l *loader) keep(n *node, u *unit, files []*ast.File, ix *unitIndex) {
	e, err := encode(l.fset, u, files, n.full)
	if err != nil {
		l.log.Warn("go_navigate: a package's type information cannot be kept", "package", u.id, "error", err)
		u.apiKey = apiKeyOf(l.fset, u, n.deps)
		return
	}
	imports, direct := importsOf(n)
	pkg, hidden, err := decode(l.fset, e, u.path, imports, direct, l.tables)
	if err != nil {
		u.apiKey = apiKeyOf(l.fset, u, n.deps)
	} else {
		u.apiKey = apiKeyOfEntry(l.fset, u, pkg, e, n.deps)
	}
	if n.local {
		e.APIKey, e.Index = u.apiKey, ix.stored()
	}
	if !n.full || ix != nil {
		l.store.saveLater(u.id, u.key, e)
	}
	if err != nil {
		l.log.Warn("go_navigate: a package's type information cannot be read back", "package", u.id, "error", err)
		return
	}
	u.t.types = pkg
	if n.local {
		u.t.hidden = hidden
	}
	if ix != nil {
		l.resolveLater(n, u, ix)
		return // its index names offsets in the parsed files
	}
	// Nothing refers to the parsed files now: their line tables go too.
	for _, f := range files {
		l.fset.RemoveFile(l.fset.File(f.FileStart))
	}
}

// importsOf returns the packages a node's dependencies import, directly
// or not, by path, and those it imports.
func importsOf(n *node) (map[string]*types.Package, []*types.Package) {
	imports := map[string]*types.Package{}
	var direct []*types.Package
	for _, d := range n.deps {
		direct = append(direct, d.unit.api())
	}
	var walk func(n *node)
	walk = func(n *node) {
		for _, d := range n.deps {
			if _, ok := imports[d.unit.api().Path()]; !ok {
				imports[d.unit.api().Path()] = d.unit.api()
				walk(d)
			}
		}
	}
	walk(n)
	return imports, direct
}

// saveLater writes the entry of a key in the background.
func (s *typeStore) saveLater(id, key string, e *storedUnit) {
	if s.dir == "" {
		return
	}
	e.Key = key
	s.writers <- struct{}{} // the entries waiting to be written are bounded
	s.pending.Go(func() {
		defer func() { <-s.writers }()
		if err := s.save(key, e); err != nil {
			s.log.Warn("go_navigate: a package's type information cannot be written", "package", id, "error", err)
		}
	})
}

// wait returns when the entries given to saveLater are written, and
// the programs' background index builds, which write theirs, have
// ended (indexInBackground).
func (s *typeStore) wait() {
	s.builds.Wait()
	s.pending.Wait()
}

func (s *typeStore) path(key string) string {
	return filepath.Join(s.dir, key[:2], key)
}

// open reads the entry of a key, with its index or without (see
// readIndex): nil when there is none, an error when it is damaged (see
// check). The entry's export data is in a buffer the store reuses:
// the caller decodes it, then calls release, and reads no more of it.
// Reading each entry into new memory was a third of reading the
// standard library's entries: the kernel's copy faulting the pages in,
// and the runtime zeroing them.
func (s *typeStore) open(key string, withIndex bool) (e *storedUnit, release func(), err error) {
	release = func() {}
	if s.dir == "" {
		return nil, release, nil
	}
	f, err := os.Open(s.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, release, nil
	}
	if err != nil {
		return nil, release, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, release, err
	}
	buf := s.buffer(int(fi.Size()))
	release = func() { s.bufs.Put(buf) }
	if _, err := io.ReadFull(f, *buf); err != nil {
		return nil, release, err
	}
	e, err = decodeEntry(*buf, key, withIndex)
	return e, release, err
}

// buffer returns a buffer of n bytes from the store's pool.
func (s *typeStore) buffer(n int) *[]byte {
	buf, _ := s.bufs.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	*buf = (*buf)[:n]
	return buf
}

// decodeEntry decodes the entry of a key, with its index or without,
// and checks that it holds together.
func decodeEntry(data []byte, key string, withIndex bool) (*storedUnit, error) {
	e, err := unmarshalEntry(data, withIndex)
	if err != nil {
		return nil, err
	}
	if err := e.check(key); err != nil {
		return nil, err
	}
	return e, nil
}

// save writes the entry of a key.
func (s *typeStore) save(key string, e *storedUnit) error {
	if s.dir == "" {
		return nil
	}
	path := s.path(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, e.marshal())
}

// encode returns the entry of a checked unit, from its syntax; indexed
// says the unit has an index (it is checked in full), whose entry then
// declares its unexported functions, variables and constants too (see
// hiddenDecls).
func encode(fset *token.FileSet, u *unit, files []*ast.File, indexed bool) (*storedUnit, error) {
	recoded, tables, err := recode(fset, files)
	if err != nil {
		return nil, err
	}
	e := &storedUnit{Problems: u.problems, FileNames: u.fileNames, Files: tables, Names: declaredNames(u.types())}
	var export bytes.Buffer
	if err := gcexportdata.Write(&export, recoded, u.types()); err != nil {
		return nil, fmt.Errorf("writing the export data of %s: %w", u.id, err)
	}
	e.Export = export.Bytes()
	if hidden := hiddenDecls(u.types(), indexed); hidden != nil {
		var buf bytes.Buffer
		if err := gcexportdata.Write(&buf, recoded, hidden); err != nil {
			return nil, fmt.Errorf("writing the unexported types of %s: %w", u.id, err)
		}
		e.Hidden = buf.Bytes()
	}
	return e, nil
}

// decode reads an entry's package. imports holds the packages its
// dependencies import, directly or not, by path; direct, those it
// imports.
func decode(fset *token.FileSet, e *storedUnit, path string, imports map[string]*types.Package, direct []*types.Package, tables *posTables) (pkg, hidden *types.Package, err error) {
	pkg, err = gcexportdata.Read(exportReader(e.Export), fset, imports, path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the export data of %s: %w", path, err)
	}
	// The reader lists the packages the export data names; a check
	// lists the direct imports, which implementations' visibility
	// follows.
	pkg.SetImports(direct)
	if len(e.Hidden) > 0 {
		// Reading declares the unexported types in pkg, which the
		// import map holds.
		if hidden, err = gcexportdata.Read(exportReader(e.Hidden), fset, imports, hiddenPrefix+path); err != nil {
			return nil, nil, fmt.Errorf("reading the unexported types of %s: %w", path, err)
		}
		tables.add(fset, hidden, e.Files)
	}
	tables.add(fset, pkg, e.Files)
	return pkg, hidden, nil
}

// exportReader reads export data for gcexportdata.Read, which copies
// what it reads at once from a LimitedReader, and grows a buffer from
// 512 bytes copying as it goes from any other reader. The copy is what
// lets the store reuse the buffer it read the entry into (see open).
func exportReader(data []byte) io.Reader {
	return &io.LimitedReader{R: bytes.NewReader(data), N: int64(len(data))}
}

// hiddenDecls returns a package whose exported declarations stand for
// pkg's unexported ones, so that its export data holds them; nil when
// there are none. Its aliases T0, T1... name the unexported types
// (generic types are left out, as implementations leaves them out).
// With funcs, for a repository package checked in full, it declares
// too, at their positions, F_name, a variable of each unexported
// function's signature, V_name of each variable's type, C_name of each
// constant: what an index read from disk names of its package (see
// unit.unexported). Only such a package has an index, and queries
// naming a package by its path find the test variant that has one
// before the package (see variantRank): the others' entries leave them
// out (writing the unexported declarations cost as much as writing the
// package's export data, in a second revision's profile).
func hiddenDecls(pkg *types.Package, funcs bool) *types.Package {
	w := types.NewPackage(hiddenPrefix+pkg.Path(), "hidden")
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.TypeName:
			if n, ok := obj.Type().(*types.Named); !ok || obj.IsAlias() || n.TypeParams().Len() > 0 {
				continue
			}
			alias := types.NewTypeName(token.NoPos, w, fmt.Sprintf("T%d", w.Scope().Len()), nil)
			types.NewAlias(alias, obj.Type())
			w.Scope().Insert(alias)
		case *types.Func:
			if funcs && obj.Signature().TypeParams().Len() == 0 {
				w.Scope().Insert(types.NewVar(obj.Pos(), w, "F_"+name, obj.Type()))
			}
		case *types.Var:
			if funcs {
				w.Scope().Insert(types.NewVar(obj.Pos(), w, "V_"+name, obj.Type()))
			}
		case *types.Const:
			if funcs {
				w.Scope().Insert(types.NewConst(obj.Pos(), w, "C_"+name, obj.Type(), obj.Val()))
			}
		}
	}
	if w.Scope().Len() == 0 {
		return nil
	}
	return w
}
