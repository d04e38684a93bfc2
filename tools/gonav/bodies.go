package gonav

import "context"

// A repository package checked in full is first checked without the
// type information its index records (loader.check), and checked again
// with it, and indexed, when a query first needs its index: a first
// answer waits for the indexes of the packages it reads, not for the
// whole repository's. The program builds the other indexes after its
// first answer, in the background (program.indexRest).

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

// checkBodies checks a package again, recording what its index needs,
// and indexes it. Its entry is written then, with the index, under the
// key the first check kept; the unit's types stay those the first
// check left, which importers hold, and the index finds its objects in
// them (resolveLater), as one read from disk does.
func (l *loader) checkBodies(n *node, u *unit) *unitIndex {
	l.log.Debug("go_navigate: checking a package's function bodies for its index", "package", u.id)
	c, files, info := l.typeCheck(n, indexed)
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

// indexInBackground starts indexRest once, after the program's first
// answer, until the program is dropped; the store's wait waits for it,
// as for the entries it writes. before, when not nil, runs first in its
// goroutine (tests hold the build with it).
func (p *program) indexInBackground(store *typeStore, before func(context.Context)) {
	p.restOnce.Do(func() {
		store.builds.Go(func() {
			if before != nil {
				before(p.life)
			}
			p.indexRest(p.life)
		})
	})
}
