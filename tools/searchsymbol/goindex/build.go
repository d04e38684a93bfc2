package goindex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// build indexes every .go file of src, parsing only those whose blob is not
// in the blob cache, and keeps its counts in counts.
func (ix *Indexer) build(ctx context.Context, src Source, opts Options, counts *buildCounts) (*Index, error) {
	start := time.Now().UnixNano()
	ix.adoptLoaded()
	goFiles, mods, err := ix.list(ctx, src, opts)
	if err != nil {
		return nil, err
	}
	counts.total.Store(int64(len(goFiles)))
	var memoKey any
	memo := false
	if m, ok := src.(memoKeyer); ok {
		memoKey, memo = m.memoKey()
	}
	files := make([]indexedFile, len(goFiles))
	reused := make(map[string]statEntry)
	for i, f := range goFiles {
		if e, ok := ix.stats.lookup(memoKey, f); ok && memo {
			goFiles[i].ID = e.id // unchanged since it was last read
			reused[f.Path] = e
		}
		files[i] = indexedFile{path: f.Path, id: goFiles[i].ID, importPath: mods.importPath(parentDir(f.Path))}
	}
	reparsed, err := ix.parseAll(ctx, src, goFiles, files, counts)
	if err != nil {
		return nil, err
	}
	if memo {
		ix.stats.replace(memoKey, statEntries(goFiles, files, reused, start))
	}
	// Files removed between the walk and the read have no parse result.
	files = slices.DeleteFunc(files, func(f indexedFile) bool { return f.pf == nil })
	key := contentKey(src.Revision(), opts, files)
	if idx := ix.tree.get(key); idx != nil && src.Revision() == "" {
		return idx, nil
	}
	idx, err := assemble(src.Revision(), opts, files, ix.names)
	if err != nil {
		return nil, err
	}
	idx.facts.Reparsed = reparsed
	if src.Revision() == "" {
		ix.tree.put(key, idx)
	}
	ix.log.Debug("goindex: built", "revision", idx.revision, "files", idx.facts.Files,
		"reparsed", reparsed, "symbols", idx.facts.Symbols, "parse_failures", idx.facts.ParseFailures)
	return idx, nil
}

// parseAll fills files[i].pf (and id, when unknown) for every file, from
// the blob cache or by parsing. One goroutine (this one) reads files, in
// walk order, since a git repository is read from one goroutine; Workers
// goroutines hash and parse them. The channel between them is short, so at
// most a few files' contents are in memory at once. It returns the number
// of files parsed.
func (ix *Indexer) parseAll(ctx context.Context, src Source, goFiles []File, files []indexedFile, counts *buildCounts) (int, error) {
	type job struct {
		i   int
		src []byte
	}
	jobs := make(chan job, 2*ix.opts.Workers)
	var workers sync.WaitGroup
	var reparsed atomic.Int64
	for range ix.opts.Workers {
		workers.Go(func() {
			for j := range jobs {
				f := &files[j.i]
				if f.id == "" {
					f.id = BlobID(j.src)
					if pf, ok := ix.blobs.get(f.id); ok {
						f.pf = pf
						continue
					}
				}
				f.pf = parseFile(j.src)
				ix.names.internFile(f.pf)
				ix.blobs.put(f.id, f.pf)
				reparsed.Add(1)
			}
		})
	}
	err := ix.readAll(ctx, src, goFiles, files, counts, func(i int, b []byte) { jobs <- job{i, b} })
	close(jobs)
	workers.Wait()
	return int(reparsed.Load()), err
}

// statEntries returns the stat memo of a directory's files after a build
// that started at start: the entries it reused, and the files it read.
func statEntries(goFiles []File, files []indexedFile, reused map[string]statEntry, start int64) map[string]statEntry {
	memo := make(map[string]statEntry, len(files))
	for i, g := range goFiles {
		switch e, ok := reused[g.Path]; {
		case ok:
			memo[g.Path] = e
		case files[i].pf != nil && g.ModTime != 0:
			memo[g.Path] = statEntry{size: g.Size, modTime: g.ModTime, id: files[i].id, readAt: start}
		}
	}
	return memo
}

// readAll hands the contents of every file not in the blob cache to parse,
// counting the files as it goes.
func (ix *Indexer) readAll(ctx context.Context, src Source, goFiles []File, files []indexedFile, counts *buildCounts, parse func(int, []byte)) error {
	for i, f := range goFiles {
		counts.done.Store(int64(i + 1))
		if f.ID != "" {
			if pf, ok := ix.blobs.get(f.ID); ok {
				files[i].pf = pf
				continue
			}
		}
		b, err := src.ReadFile(ctx, f)
		if errors.Is(err, fs.ErrNotExist) && src.Revision() == "" {
			continue // removed from the working tree since the walk
		}
		if err != nil {
			return err
		}
		parse(i, b)
	}
	return nil
}

// list walks src for the .go files to index and the go.mod files that give
// their import paths.
func (ix *Indexer) list(ctx context.Context, src Source, opts Options) ([]File, moduleMap, error) {
	var goFiles, modFiles []File
	err := src.Walk(ctx, func(f File) error {
		name := path.Base(f.Path)
		switch {
		case f.Dir:
			if skippedDir(name, opts) {
				return fs.SkipDir
			}
		case name == "go.mod":
			modFiles = append(modFiles, f)
		case strings.HasSuffix(name, ".go") && !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_"):
			goFiles = append(goFiles, f)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("goindex: listing files: %w", err)
	}
	mods := make(moduleMap, len(modFiles))
	for _, f := range modFiles {
		b, err := src.ReadFile(ctx, f)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && src.Revision() == "" {
				continue
			}
			return nil, nil, err
		}
		mods[parentDir(f.Path)] = modulePath(b)
	}
	return goFiles, mods, nil
}
