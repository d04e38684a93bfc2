package gonav

import (
	"context"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
)

// maxSignature bounds a signature's text (a struct type's fields, say).
const maxSignature = 1024

// packageAPI answers the exported API of a package as go doc shows it:
// constants, variables, functions, types with their constructors and
// methods, in that order, each with its signature and the first sentence
// of its doc comment. The package itself comes first, with its synopsis.
func (p *program) packageAPI(ctx context.Context, u *unit) ([]Location, error) {
	if err := p.ensure(ctx, hasPath(u.path), nil); err != nil {
		return nil, err
	}
	if plain := p.unitByID(u.path); plain != nil {
		u = plain // the API leaves tests out, as go doc does
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range u.fileNames {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := p.roots.readFile(name)
		if err != nil {
			continue
		}
		if f, err := parser.ParseFile(fset, name, data, parser.ParseComments|parser.SkipObjectResolution); f != nil && err == nil {
			files = append(files, f)
		}
	}
	dp, err := doc.NewFromFiles(fset, files, u.path)
	if err != nil || u.types() == nil {
		return nil, nil
	}
	api := apiWriter{p: p, u: u, fset: fset, dp: dp}
	head := Location{File: u.dir, Kind: "package", Name: u.path, Package: u.path, Signature: "package " + u.name, Doc: dp.Synopsis(dp.Doc)}
	if len(files) > 0 {
		head = api.loc(files[0].Name, "package", u.path, "package "+u.name, dp.Doc)
	}
	out := []Location{head}
	out = api.values(out, dp.Consts)
	out = api.values(out, dp.Vars)
	for _, f := range dp.Funcs {
		out = append(out, api.object(f.Decl.Name, f.Name, f.Doc))
	}
	for _, t := range dp.Types {
		out = append(out, api.object(t.Decl, t.Name, t.Doc))
		out = api.values(out, t.Consts)
		out = api.values(out, t.Vars)
		for _, f := range t.Funcs {
			out = append(out, api.object(f.Decl.Name, f.Name, f.Doc))
		}
		for _, m := range t.Methods {
			out = append(out, api.method(m, t.Name))
		}
	}
	return out, nil
}

// apiWriter renders the entries of one package's API.
type apiWriter struct {
	p    *program
	u    *unit
	fset *token.FileSet
	dp   *doc.Package
}

func (a apiWriter) loc(n ast.Node, kind, name, sig, text string) Location {
	pos := a.fset.Position(n.Pos())
	if len(sig) > maxSignature {
		sig = sig[:maxSignature] + "..."
	}
	return Location{
		File: pos.Filename, Line: pos.Line, Column: pos.Column, Text: a.p.lineText(pos.Filename, pos.Line),
		Kind: kind, Name: name, Package: a.u.path, Signature: sig, Doc: a.dp.Synopsis(text),
	}
}

func (a apiWriter) values(out []Location, vals []*doc.Value) []Location {
	for _, v := range vals {
		for _, spec := range v.Decl.Specs {
			for _, id := range spec.(*ast.ValueSpec).Names {
				if id.IsExported() {
					out = append(out, a.object(id, id.Name, v.Doc))
				}
			}
		}
	}
	return out
}

func (a apiWriter) object(n ast.Node, name, text string) Location {
	obj := a.u.types().Scope().Lookup(name)
	if obj == nil {
		return a.loc(n, "unknown", a.u.path+"."+name, "", text)
	}
	return a.loc(n, kindOf(obj), qualified(obj), a.signature(obj), text)
}

func (a apiWriter) method(m *doc.Func, typeName string) Location {
	if tn, ok := a.u.types().Scope().Lookup(typeName).(*types.TypeName); ok {
		if obj, _, _ := types.LookupFieldOrMethod(tn.Type(), true, a.u.types(), m.Name); obj != nil {
			return a.loc(m.Decl.Name, "method", qualified(obj), a.signature(obj), m.Doc)
		}
	}
	return a.loc(m.Decl.Name, "method", a.u.path+"."+typeName+"."+m.Name, "", m.Doc)
}

// signature is an object's declaration with names of its own package
// unqualified, as go doc writes them.
func (a apiWriter) signature(obj types.Object) string {
	return types.ObjectString(obj, types.RelativeTo(a.u.types()))
}

// typesObjectString is an object's declaration, qualified relative to its
// own package.
func typesObjectString(obj types.Object) string {
	return types.ObjectString(obj, types.RelativeTo(obj.Pkg()))
}
