package gonav

import "context"

// A repository package checked in full that the first query does not
// read is first checked for its declarations only (loader.check), as
// its importers need, and checked again with its function bodies, and
// indexed, when a query first needs its index: a first answer waits for
// the bodies of the packages it reads, not for the whole repository's.
// The program builds the other indexes after its first answer, in the
// background (program.indexRest).

// indexLater has the unit's index built by checkBodies when it is first
// asked for.
func (l *loader) indexLater(n *node, u *unit) {
	u.setIndexer(func(ctx context.Context) (*unitIndex, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return l.checkBodies(n, u), nil
	})
}

// checkBodies checks a package again, with its function bodies and
// recording what its index needs, and indexes it. The unit's problems
// are this check's, complete: its bodies' type errors too. Its entry is
// written then, with the index and those problems, under the key the
// first check kept (an entry of a package checked in full always has
// its index, so none is written from a check without bodies); the
// unit's types stay those the first check left, which importers hold,
// and the index finds its objects in them (resolveLater), as one read
// from disk does.
func (l *loader) checkBodies(n *node, u *unit) *unitIndex {
	l.log.Debug("go_navigate: checking a package's function bodies for its index", "package", u.id)
	c, files, info := l.typeCheck(n, indexed)
	u.problems = c.problems // its function bodies' type errors too
	ix := l.buildIndex(c, files, info)
	if e, err := encode(l.fset, c, files, true); err != nil {
		l.log.Warn("go_navigate: a package's type information cannot be kept", "package", u.id, "error", err)
	} else {
		e.APIKey, e.Index = u.apiKey, ix.stored()
		l.store.saveLater(u.id, u.key, e)
	}
	l.resolveLater(n, u, ix)
	return ix
}

// indexInBackground starts, once, after the program's first answer and
// until the program is dropped, the check of the units no query needed
// yet, one at a time (see deferred), then indexRest; the store's wait
// waits for them, as for the entries they write. before, when not nil,
// runs first in its goroutine (tests hold the build with it).
func (p *program) indexInBackground(store *typeStore, before func(context.Context)) {
	p.restOnce.Do(func() {
		store.builds.Go(func() {
			if before != nil {
				before(p.life)
			}
			if p.checkRest(p.life) == nil {
				p.indexRest(p.life)
			}
		})
	})
}

// checkRest checks every unit not checked yet on one of the loader's
// workers, leaving the others to the queries, which check what they
// need first.
func (p *program) checkRest(ctx context.Context) error {
	if p.complete() {
		return nil
	}
	ld := *p.lazy.l
	ld.workers = 1
	_, err := ld.run(ctx, p.lazy.closure(everything), p.lazy)
	if err == nil {
		err = waitChecked(ctx, p.lazy.order)
	}
	p.publish()
	return err
}
