package searchtext

// finder finds, in one text, the next place at or after a position where
// one of a matcher's literals starts: a byte search per literal, each
// remembered until passed, or a case-insensitive search for an ASCII
// string.
type finder struct {
	data []byte
	lits [][]byte
	rare []int // per literal the offset of its rarest byte
	next []int // per literal its next start at or after the last pos; -2: not searched yet, -1: none
	fold *asciiFold
	// cases are the next places of the two cases of fold's rare byte, as
	// next for literals.
	cases [2]int
}

func (m *matcher) finder(data []byte) *finder {
	f := &finder{data: data, lits: m.lits, rare: m.rare, fold: m.fold, cases: [2]int{-2, -2}}
	f.next = make([]int, len(m.lits))
	for i := range f.next {
		f.next[i] = -2
	}
	return f
}

// from returns the first start of a literal at or after pos, or -1.
func (f *finder) from(pos int) int {
	if f.fold != nil {
		return f.foldFrom(pos)
	}
	at := -1
	for i, lit := range f.lits {
		if n := advance(&f.next[i], f.data, pos, lit, f.rare[i]); n >= 0 && (at < 0 || n < at) {
			at = n
		}
	}
	return at
}

// advance returns the first start of lit at or after pos, searching again
// only when *next, its last answer, is before pos; rare is the offset of
// lit's rarest byte.
func advance(next *int, data []byte, pos int, lit []byte, rare int) int {
	if *next == -2 || *next >= 0 && *next < pos {
		*next = -1
		if pos <= len(data) {
			if j := indexRare(data[pos:], lit, rare); j >= 0 {
				*next = pos + j
			}
		}
	}
	return *next
}

// foldFrom is from for a case-insensitive ASCII string: it finds the next
// place of either case of the string's rarest byte, and compares around
// it.
func (f *finder) foldFrom(pos int) int {
	a, n := f.fold, len(f.fold.lower)
	for at := pos + a.rare; ; at++ {
		hit := -1
		for c, b := range a.rareCases {
			if h := advance(&f.cases[c], f.data, at, b, 0); h >= 0 && (hit < 0 || h < hit) {
				hit = h
			}
		}
		if hit < 0 {
			return -1
		}
		start := hit - a.rare
		if start+n <= len(f.data) && a.equal(f.data[start:start+n]) {
			return start
		}
		at = hit
	}
}

// asciiFold is a case-insensitive search for an ASCII string none of
// whose letters has a spelling outside ASCII under Unicode's simple
// folding (k and s do: the Kelvin sign, the long s), so that ASCII case
// is all there is to fold: "ERROR" has 32 spellings, which searched one
// by one cost more than matching the expression.
type asciiFold struct {
	lower     []byte
	rare      int       // the position searched for first
	rareCases [2][]byte // its byte in each case (the same twice when not a letter)
}

// newASCIIFold returns the search for runes, or false when they are not
// ASCII or have a letter that folds outside it.
func newASCIIFold(runes []rune) (*asciiFold, bool) {
	a := &asciiFold{lower: make([]byte, len(runes))}
	best := -1
	for i, r := range runes {
		c := byte(r)
		switch {
		case r >= 0x80 || r == '\n':
			return nil, false
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if c == 'k' || c == 's' {
			return nil, false
		}
		a.lower[i] = c
		// A letter is found in either case: it is as rare as its
		// commoner case.
		rank := byteRank(c)
		if 'a' <= c && c <= 'z' {
			rank = min(rank, byteRank(c-('a'-'A')))
		}
		if rank > best {
			best, a.rare = rank, i
		}
	}
	if len(runes) == 0 {
		return nil, false
	}
	c := a.lower[a.rare]
	a.rareCases = [2][]byte{{c}, {c}}
	if 'a' <= c && c <= 'z' {
		a.rareCases[1][0] = c - ('a' - 'A')
	}
	return a, true
}

// equal reports whether b is a spelling of the string.
func (a *asciiFold) equal(b []byte) bool {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != a.lower[i] {
			return false
		}
	}
	return true
}
