package client

// maxAbandoned bounds how many abandoned request ids a connection remembers.
// A server that answers later than that many newer give-ups sees its answer
// counted as unknown, which is what it then is to the client.
const maxAbandoned = 256

// abandonedIDs is a bounded set of request ids, oldest forgotten first.
// The zero value is empty and ready to use.
type abandonedIDs struct {
	set   map[int64]struct{}
	order []int64 // insertion order; entries already removed are skipped
}

func (a *abandonedIDs) add(id int64) {
	if a.set == nil {
		a.set = make(map[int64]struct{})
	}
	a.set[id] = struct{}{}
	a.order = append(a.order, id)
	for len(a.set) > maxAbandoned {
		oldest := a.order[0]
		a.order = a.order[1:]
		delete(a.set, oldest)
	}
	if len(a.order) > 2*maxAbandoned {
		// Removed ids linger in order until evicted: compact.
		kept := a.order[:0]
		for _, id := range a.order {
			if _, ok := a.set[id]; ok {
				kept = append(kept, id)
			}
		}
		a.order = kept
	}
}

func (a *abandonedIDs) remove(id int64) bool {
	if _, ok := a.set[id]; !ok {
		return false
	}
	delete(a.set, id)
	return true
}
