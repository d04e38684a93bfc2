package goindex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"
)

// build indexes every .go file of src, parsing only those whose blob is not
// in the blob cache. One goroutine (this one) reads files, in walk order;
// Workers goroutines hash and parse them. The channel between them is
// short, so at most a few files' contents are in memory at once.
func (ix *Indexer) build(ctx context.Context, src Source, opts Options) (*Index, error) {
	start := time.Now().UnixNano()
	goFiles, mods, err := ix.list(ctx, src, opts)
	if err != nil {
		return nil, err
	}
	memoKey := ""
	if m, ok := src.(memoKeyer); ok {
		memoKey = m.memoKey()
	}
	memo := make(map[string]statEntry)
	files := make([]indexedFile, len(goFiles))
	for i, f := range goFiles {
		if e, ok := ix.stats.lookup(memoKey, f); ok && memoKey != "" {
			goFiles[i].ID = e.id
			memo[f.Path] = e
		}
		files[i] = indexedFile{path: f.Path, id: goFiles[i].ID, importPath: mods.importPath(parentDir(f.Path))}
	}

	type job struct {
		i   int
		src []byte
	}
	jobs := make(chan job, 2*ix.opts.Workers)
	var parsed sync.WaitGroup
	var mu sync.Mutex
	reparsed := 0
	for range ix.opts.Workers {
		parsed.Go(func() {
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
				mu.Lock()
				reparsed++
				mu.Unlock()
			}
		})
	}
	err = ix.readAll(ctx, src, goFiles, files, func(i int, b []byte) { jobs <- job{i, b} })
	close(jobs)
	parsed.Wait()
	if err != nil {
		return nil, err
	}

	// Files removed between the walk and the read have no parse result.
	kept := files[:0]
	for i, f := range files {
		if f.pf == nil {
			continue
		}
		kept = append(kept, f)
		if g := goFiles[i]; memoKey != "" && g.ModTime != 0 && g.ID == "" {
			memo[f.path] = statEntry{size: g.Size, modTime: g.ModTime, id: f.id, readAt: start}
		}
	}
	if memoKey != "" {
		ix.stats.replace(memoKey, memo)
	}
	idx := assemble(src.Revision(), opts, kept, ix.names)
	idx.facts.Reparsed = reparsed
	ix.log.Debug("goindex: built", "revision", idx.revision, "files", idx.facts.Files,
		"reparsed", reparsed, "symbols", idx.facts.Symbols, "parse_failures", idx.facts.ParseFailures)
	return idx, nil
}

// readAll hands the contents of every file not in the blob cache to parse.
func (ix *Indexer) readAll(ctx context.Context, src Source, goFiles []File, files []indexedFile, parse func(int, []byte)) error {
	for i, f := range goFiles {
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
