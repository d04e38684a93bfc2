// Package gonav answers go_navigate: type-checked navigation of a
// repository's Go code at any committed revision. Definition, references
// (with their enclosing functions), implementations, callers and callees
// (a static call graph by class hierarchy analysis), and a package's
// exported API.
//
//	err := gonav.Register(s, reg, gonav.Options{CacheDir: dir, Verify: verify.Options{SelfHelper: true}})
//
// # How a revision is loaded
//
// The revision is exported (workspace's Snapshot.Export, the tree
// verify_patch checks but its testdata directories, which nothing of the
// load reads (exportskip.go), kept on disk by its ExportKey), then go list
// -deps -test runs on it inside verify's sandbox (Checker.GoList: another
// uid, no network, GOPROXY=off, GOFLAGS=-mod=readonly, GOTOOLCHAIN=local,
// CGO_ENABLED=0, the module cache read-only). go list is the only process;
// it reads the tree and executes nothing of the repository. A Go
// distribution's tree (the golang/go repository, whose src/go.mod
// declares module std, or that src directory committed alone) is listed
// with GOROOT set to its export: its standard library is the revision's,
// not the server's Go's (goroot.go). The packages it reports, test
// variants included, are parsed and type-checked in
// this process with go/types (type-checking is not executing), for
// their declarations only, which is what importers need, each file
// parsed with its functions' bodies blanked out (blank.go); the
// repository packages the query that starts the load reads, with
// function bodies and full type information too. The repository's other packages have
// their bodies checked when a query first reads them (bodies.go). A
// repository package recompiled for another package's test (q [p.test])
// is checked as a dependency is: the package, or its own test variant,
// has its files.
//
// Packages and their test variants (p [p.test], p_test [p.test], q
// [p.test]) are checked when a query needs them (demand.go). The load
// checks those the query that starts it needs, with their
// dependencies: for a symbol, those whose files spell its names and
// the packages its package part may name; for a position, those
// holding the file; for implementations, callers and callees, all. A
// later query has what it reads checked before it reads types
// (program.ensure): references the packages whose files hold the name,
// a position those holding the file, an imported package's name that
// package, package_api the package, implementations, callers and
// callees every one. A unit is checked once, however many queries ask
// for it. After the first answer the program checks the rest in the
// background, one at a time, then builds the indexes no query built
// (see Caching). The answer does not depend on which packages are
// checked yet.
//
// # Relations
//
// The relations follow gopls where it has the same one: references of a
// method include the uses of the methods related to it by interface
// satisfaction (related_reference); implementations count the types
// declared in the functions of the target's package.
//
// # Caching
//
// A type-checked package is keyed by its files' contents (their git blob
// ids, which an export names as it writes them, filesums.go) and its
// dependencies' API keys (a hash of their export data and the real
// positions it declares, and of their own dependencies' API keys), and
// shared by the programs of every revision
// that has the same key: a second revision checks again only the
// packages that changed, and their importers only when a change reached
// the API (early cutoff, cutoff.go). A revision whose Go files keep their
// package clauses, imports and directives reuses the last go list
// output, and what the first load of that listing read of the files
// outside the repository, which key the dependencies (outside.go). The
// listings are kept on disk too, with the stats of the directories and
// files outside the export they name: a new process takes one, without
// running go list, when those stats are unchanged (liststore.go).
// Loaded programs are kept for the last few revisions;
// concurrent first calls on one revision load it once (singleflight),
// reporting progress to the call that started it.
//
// A repository package checked with function bodies has an index
// (index.go): its identifiers with the objects they declare or use and
// their enclosing functions, its package clauses, imports, calls and the
// types declared in its functions. Queries read the index; the syntax,
// types.Info and the check's own objects are dropped. The load checks
// such a package's declarations only, unless the query that starts it
// reads the package: a query builds the indexes of the packages it reads
// when it first needs them, checking their bodies then (bodies.go,
// needs.go; for references, the packages whose files hold the name),
// and the package's problems are complete once its index is. An entry
// of such a package is written with its index, never from a check
// without bodies. The first answer starts building the others in the
// background, one at a time, until the program is dropped. A unit's index is produced once,
// however many queries ask at once (unit.indexOf).
//
// Every package is kept on disk under the cache directory by key, as
// export data (disk.go, positions.go), the repository's with their
// indexes, written in the background (a repository package's when its
// index is built). A new process or another replica
// sharing the directory reads them instead of checking them again. The
// process that checked a package reads it back from the same entry: a
// load keeps export data's types, far smaller than a check's scopes,
// and a process answers the same whether it checked a package or read
// it. A load reads a repository package's entry without its index,
// which the first query that needs the package reads from the entry
// (indexstore.go); a package no query needs yet is not read at all
// until the background build after the first answer. Nor does a load
// decode an entry's export data: a package's types are decoded, after
// its dependencies', when a query first asks for them (lazytypes.go),
// and a query reads most packages through their indexes alone, which
// name objects by key; the entry lists the package-level names, which
// a symbol's lookup reads instead of the types. An index
// finds the objects it names in the packages read, decoding the
// package that declares one; only an object
// declared in a function (a local variable, a type of a function body)
// has its package checked again, once, when a query first needs it.
// Queries avoid needing one: callers
// names and follows functions by the index, and implementations looks
// at a local type only when the method names the index keeps of it may
// relate it to the target (localsets.go). An entry is encoded by hand
// (entrycodec.go), and checked as it is read (entrycheck.go): one that
// is damaged, or another package's, is a miss, warned of, and its
// package is checked and written again; so is an index found damaged
// when a query reads it.
//
// An export links the files the previous export of the workspace holds
// with the same blob and mode, so a second revision writes only the
// files that changed. A program the service drops ends its background
// build of the method index, which would otherwise hold it alive.
//
// # Precision
//
// Every result says whether it is typed. A package that does not
// type-check (a type error, a dependency missing from the module cache,
// an oversized file) still answers: identifiers go/types could not
// resolve are matched by name and marked syntactic_reference, and the
// result lists the failed packages with their first errors: all of them
// for the packages whose indexes the query read (for references, those
// naming the identifier), and for the others what go list and their
// files said, since their function bodies may not be checked yet and
// the answer does not depend on them; of the test variants the query
// did not read, and of the packages without an index (their test
// variant has it) it did not read, what go list and their files said
// too, since they may not be checked yet. When go list
// cannot run at all (a replace directive outside the export, no go
// command), each directory is checked alone and the result says
// syntactic.
package gonav

//go:generate go run github.com/repo-mcp/repo-mcp/server/cmd/gencomments
