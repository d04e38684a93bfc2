package goindex

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
)

// parsedFile is what the indexer keeps of one parsed .go file. It depends
// only on the file's contents, never on its path, so it is cached by blob id
// and shared by every revision and path that holds the same blob.
type parsedFile struct {
	pkgName    string // "" when the package clause did not parse
	pkgLine    int32
	pkgCol     int32
	pkgDoc     string // first sentence of the package comment
	constraint string // the //go:build expression, if any
	parseErr   bool   // the file has syntax errors; syms holds what parsed
	syms       []symbol
	// Name ids in the Indexer's nameTable, set before the file is shared.
	pkgID int32
	ids   []int32 // of syms
}

// symbol is one declaration in a parsedFile.
type symbol struct {
	name      string
	container string // receiver type of a method, struct of a field, interface of an interface method
	kind      Kind
	ptrRecv   bool // a method with a pointer receiver
	line, col int32
	sig       string
	doc       string
}

// parseFile parses src and extracts its declarations. A file with syntax
// errors yields what go/parser recovered.
func parseFile(src []byte) *parsedFile {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	pf := &parsedFile{parseErr: err != nil}
	if f == nil {
		return pf
	}
	x := extractor{fset: fset, tf: fset.File(f.FileStart), src: src, out: pf}
	x.file(f)
	return pf
}

type extractor struct {
	fset *token.FileSet
	tf   *token.File
	src  []byte
	out  *parsedFile
}

func (x *extractor) file(f *ast.File) {
	if f.Name != nil && f.Name.Name != "_" && f.Name.Name != "" {
		x.out.pkgName = f.Name.Name
		x.out.pkgLine, x.out.pkgCol = x.position(f.Name.Pos())
		x.out.pkgDoc = x.docAbove(f.Package)
	}
	x.out.constraint = x.buildConstraint(f.Package)
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			x.funcDecl(d)
		case *ast.GenDecl:
			x.genDecl(d)
		}
	}
}

func (x *extractor) position(p token.Pos) (line, col int32) {
	if !p.IsValid() {
		return 0, 0
	}
	pos := x.fset.PositionFor(p, false)
	return int32(pos.Line), int32(pos.Column)
}

func (x *extractor) add(id *ast.Ident, s symbol) {
	if id == nil || id.Name == "_" || id.Name == "" {
		return
	}
	s.name = id.Name
	s.line, s.col = x.position(id.Pos())
	x.out.syms = append(x.out.syms, s)
}

func (x *extractor) funcDecl(d *ast.FuncDecl) {
	if d.Name == nil || d.Type == nil {
		return
	}
	s := symbol{kind: KindFunc, sig: x.text(d.Pos(), d.Type.End()), doc: x.docAbove(d.Pos())}
	if d.Recv != nil {
		if len(d.Recv.List) == 0 {
			return
		}
		s.kind = KindMethod
		s.container, s.ptrRecv = receiverType(d.Recv.List[0].Type)
	} else if d.Name.Name == "init" {
		return // init functions cannot be referred to
	}
	x.add(d.Name, s)
}

// receiverType returns the base type name of a receiver expression.
func receiverType(e ast.Expr) (name string, pointer bool) {
	for {
		switch t := e.(type) {
		case *ast.ParenExpr:
			e = t.X
		case *ast.StarExpr:
			pointer = true
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name, pointer
		default:
			return "", pointer
		}
	}
}

func (x *extractor) genDecl(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		// A lone spec's documentation is on the declaration; a group's
		// documentation applies to each spec without its own.
		switch s := spec.(type) {
		case *ast.TypeSpec:
			x.typeSpec(d, s, x.specDoc(d, s))
		case *ast.ValueSpec:
			kind := KindVar
			if d.Tok == token.CONST {
				kind = KindConst
			}
			sig := d.Tok.String() + " " + x.text(s.Pos(), s.End())
			doc := x.specDoc(d, s)
			for _, n := range s.Names {
				x.add(n, symbol{kind: kind, sig: sig, doc: doc})
			}
		}
	}
}

// specDoc returns the doc of a type or value spec: its own doc comment,
// else its line comment, else the doc comment of its declaration.
func (x *extractor) specDoc(d *ast.GenDecl, s ast.Spec) string {
	if doc := x.docAbove(s.Pos()); doc != "" {
		return doc
	}
	if doc := x.lineComment(s.End()); doc != "" {
		return doc
	}
	return x.docAbove(d.Pos())
}

// fieldDoc returns the doc of a struct field or interface method: its doc
// comment, else its line comment.
func (x *extractor) fieldDoc(f *ast.Field) string {
	if doc := x.docAbove(f.Pos()); doc != "" {
		return doc
	}
	return x.lineComment(f.End())
}

func (x *extractor) typeSpec(d *ast.GenDecl, s *ast.TypeSpec, doc string) {
	if s.Name == nil {
		return
	}
	sym := symbol{kind: KindType, doc: doc}
	end := s.End()
	switch t := s.Type.(type) {
	case *ast.StructType:
		sym.kind = KindStruct
		end = t.Struct + token.Pos(len("struct"))
	case *ast.InterfaceType:
		sym.kind = KindInterface
		end = t.Interface + token.Pos(len("interface"))
	}
	if s.Assign.IsValid() {
		sym.kind = KindAlias
		end = s.End()
	}
	sym.sig = "type " + x.text(s.Pos(), end)
	x.add(s.Name, sym)

	if s.Assign.IsValid() {
		return // an alias's fields and methods belong to the aliased type
	}
	switch t := s.Type.(type) {
	case *ast.StructType:
		x.fields(s.Name.Name, t.Fields)
	case *ast.InterfaceType:
		x.interfaceMethods(s.Name.Name, t.Methods)
	}
}

func (x *extractor) fields(container string, list *ast.FieldList) {
	if list == nil {
		return
	}
	for _, f := range list.List {
		if f.Type == nil {
			continue
		}
		doc := x.fieldDoc(f)
		sig := x.text(f.Pos(), f.Type.End())
		if len(f.Names) == 0 { // embedded field
			if name := embeddedName(f.Type); name != nil {
				x.add(name, symbol{kind: KindField, container: container, sig: sig, doc: doc})
			}
			continue
		}
		for _, n := range f.Names {
			x.add(n, symbol{kind: KindField, container: container, sig: sig, doc: doc})
		}
	}
}

// embeddedName returns the identifier that names an embedded field.
func embeddedName(e ast.Expr) *ast.Ident {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.SelectorExpr:
			return t.Sel
		case *ast.Ident:
			return t
		default:
			return nil
		}
	}
}

func (x *extractor) interfaceMethods(container string, list *ast.FieldList) {
	if list == nil {
		return
	}
	for _, m := range list.List {
		if _, ok := m.Type.(*ast.FuncType); !ok || len(m.Names) == 0 {
			continue // an embedded interface or a type-set term
		}
		doc := x.fieldDoc(m)
		for _, n := range m.Names {
			x.add(n, symbol{kind: KindInterfaceMethod, container: container,
				sig: x.text(m.Pos(), m.Type.End()), doc: doc})
		}
	}
}

// text returns the source between two positions with each run of white
// space collapsed to one space, cut to maxSignature bytes.
func (x *extractor) text(from, to token.Pos) string {
	tf := x.fset.File(from)
	if tf == nil || !to.IsValid() {
		return ""
	}
	start, end := tf.Offset(from), tf.Offset(min(to, token.Pos(tf.Base()+tf.Size())))
	if start < 0 || end > len(x.src) || start >= end {
		return ""
	}
	b := x.src[start:end]
	if x.out.parseErr {
		// Around a syntax error, a node may run on far past its
		// declaration: keep its first line only.
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[:i]
		}
	}
	return collapseSpace(b, maxSignature)
}
