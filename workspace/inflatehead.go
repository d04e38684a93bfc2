package workspace

import "errors"

// A listing with sizes needs the size of every blob, and a blob stored as
// a delta gives its size only in the delta's own header, its first few
// bytes once inflated. compress/flate decodes a block by first building
// lookup tables for its whole Huffman code (512 entries and more, and
// allocated link tables for codes over nine bits), which took about 7% of
// a new server's first listing to read a dozen bytes per delta, as git's
// zlib does too. inflateHead reads those bytes by hand instead: it decodes
// the block's code lengths through a table of 128 entries, and the first
// symbols one bit at a time, from the code lengths alone.
//
// It is as strict as compress/flate about the block's header (the same
// completeness rule for every code, the same bounds), so that where it
// answers, compress/flate would have decoded the same bytes; what it does
// not read (a preset dictionary, a corrupt stream) is left to compress/flate.

var (
	// errShortInput says the input ended first: the bytes decoded
	// are all there is, and more input may give more.
	errShortInput = errors.New("zlib stream cut short")
	// errInflateHead says the stream is not one inflateHead reads.
	errInflateHead = errors.New("zlib stream left to compress/flate")
)

// inflateHead decodes the start of the zlib stream at the start of b into
// out, as far as out, the stream or b reach, and returns how many bytes of
// out it filled: with errShortInput when b ended first, with errInflateHead
// (and out to be ignored) when the stream is not one it reads.
func inflateHead(b, out []byte) (int, error) {
	// RFC 1950: deflate, a window of at most 32 KiB, a checked header, and
	// no preset dictionary.
	if len(b) < 2 {
		return 0, errShortInput
	}
	if b[0]&0x0f != 8 || b[0]>>4 > 7 || (uint(b[0])<<8|uint(b[1]))%31 != 0 || b[1]&0x20 != 0 {
		return 0, errInflateHead
	}
	in := bitReader{in: b[2:]}
	n := 0
	for n < len(out) {
		header, err := in.take(3)
		if err != nil {
			return n, err
		}
		switch header >> 1 {
		case 0:
			n, err = storedBlock(&in, out, n)
		case 1:
			n, err = fixedBlock(&in, out, n)
		case 2:
			n, err = dynamicBlock(&in, out, n)
		default:
			err = errInflateHead
		}
		if err != nil || header&1 != 0 {
			// An error, or the final block: the stream ends.
			return n, err
		}
	}
	return n, nil
}

// bitReader reads a deflate stream's bits, least significant first.
type bitReader struct {
	in   []byte
	bits uint64
	n    uint // bits held
}

// fill holds at least k bits, or as many as the input has left.
func (r *bitReader) fill(k uint) {
	for r.n < k && len(r.in) > 0 {
		r.bits |= uint64(r.in[0]) << r.n
		r.in = r.in[1:]
		r.n += 8
	}
}

// takeCode reads a Huffman code of k bits, which are packed most
// significant first.
func (r *bitReader) takeCode(k uint) (int, error) {
	v, err := r.take(k)
	return reverseBits(int(v), k), err
}

func (r *bitReader) take(k uint) (uint32, error) {
	if r.fill(k); r.n < k {
		return 0, errShortInput
	}
	v := uint32(r.bits & (1<<k - 1))
	r.bits >>= k
	r.n -= k
	return v, nil
}

// storedBlock copies a stored block's bytes (RFC 1951 3.2.4).
func storedBlock(r *bitReader, out []byte, n int) (int, error) {
	r.bits >>= r.n % 8 // to the byte boundary
	r.n -= r.n % 8
	lens, err := r.take(32)
	if err != nil {
		return n, err
	}
	size := lens & 0xffff
	if size != ^lens>>16 {
		return n, errInflateHead
	}
	for ; size > 0 && n < len(out); size-- {
		c, err := r.take(8)
		if err != nil {
			return n, err
		}
		out[n] = byte(c)
		n++
	}
	return n, nil
}

// Deflate's alphabets (RFC 1951 3.2.5).
const (
	maxLitCodes  = 286 // compress/flate's bound on a dynamic block's
	maxDistCodes = 30
	endOfBlock   = 256
)

// fixedBlock decodes a block with the fixed codes (RFC 1951 3.2.6), by
// their ranges rather than from code lengths.
func fixedBlock(r *bitReader, out []byte, n int) (int, error) {
	return decodeBlock(r, nil, nil, out, n)
}

// fixedLiteral decodes a symbol of the fixed literal/length code: 7 bits
// for 256-279, 8 for 0-143 and 280-287, 9 for 144-255.
func fixedLiteral(r *bitReader) (int, error) {
	code, err := r.takeCode(7)
	if err != nil {
		return 0, err
	}
	if code < 0x18 {
		return 256 + code, nil
	}
	bit, err := r.take(1)
	if err != nil {
		return 0, err
	}
	code = code<<1 | int(bit)
	switch {
	case code < 0xc0:
		return code - 0x30, nil
	case code < 0xc8:
		return 280 + code - 0xc0, nil
	}
	if bit, err = r.take(1); err != nil {
		return 0, err
	}
	return 144 + (code<<1 | int(bit)) - 0x190, nil
}

// codeLengthOrder is the order of a dynamic block's code length code's
// lengths (RFC 1951 3.2.7).
var codeLengthOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// dynamicBlock reads a dynamic block's codes and decodes its start.
func dynamicBlock(r *bitReader, out []byte, n int) (int, error) {
	counts, err := r.take(14)
	if err != nil {
		return n, err
	}
	nlit, ndist, nclen := int(counts&0x1f)+257, int(counts>>5&0x1f)+1, int(counts>>10)+4
	if nlit > maxLitCodes || ndist > maxDistCodes {
		return n, errInflateHead
	}
	var clen [19]uint8
	for _, sym := range codeLengthOrder[:nclen] {
		v, err := r.take(3)
		if err != nil {
			return n, err
		}
		clen[sym] = uint8(v)
	}
	var lengthCode smallCode
	if !lengthCode.build(clen[:]) {
		return n, errInflateHead
	}
	var lengths [maxLitCodes + maxDistCodes]uint8
	for i := 0; i < nlit+ndist; {
		sym, err := lengthCode.decode(r)
		if err != nil {
			return n, err
		}
		if sym < 16 {
			lengths[i] = uint8(sym)
			i++
			continue
		}
		var rep, fill uint8
		var extra uint
		switch sym {
		case 16:
			if i == 0 {
				return n, errInflateHead
			}
			rep, extra, fill = 3, 2, lengths[i-1]
		case 17:
			rep, extra = 3, 3
		default:
			rep, extra = 11, 7
		}
		v, err := r.take(extra)
		if err != nil {
			return n, err
		}
		end := i + int(rep) + int(v)
		if end > nlit+ndist {
			return n, errInflateHead
		}
		for ; i < end; i++ {
			lengths[i] = fill
		}
	}
	var lit, dist huffCode
	if !lit.build(lengths[:nlit]) || !dist.build(lengths[nlit:nlit+ndist]) {
		return n, errInflateHead
	}
	return decodeBlock(r, &lit, &dist, out, n)
}

// Lengths and distances: the base of each symbol, and its extra bits
// (RFC 1951 3.2.5).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// decodeBlock decodes a Huffman block's symbols into out from n on, until
// out is full or the block ends; lit and dist nil are the fixed codes.
func decodeBlock(r *bitReader, lit, dist *huffCode, out []byte, n int) (int, error) {
	for n < len(out) {
		var sym int
		var err error
		if lit == nil {
			sym, err = fixedLiteral(r)
		} else {
			sym, err = lit.decode(r)
		}
		switch {
		case err != nil:
			return n, err
		case sym < endOfBlock:
			out[n] = byte(sym)
			n++
			continue
		case sym == endOfBlock:
			return n, nil
		case sym >= maxLitCodes:
			return n, errInflateHead
		}
		sym -= endOfBlock + 1
		v, err := r.take(uint(lengthExtra[sym]))
		if err != nil {
			return n, err
		}
		length := int(lengthBase[sym]) + int(v)
		var d int
		if dist == nil {
			d, err = r.takeCode(5)
		} else {
			d, err = dist.decode(r)
		}
		if err != nil {
			return n, err
		}
		if d >= maxDistCodes {
			return n, errInflateHead
		}
		if v, err = r.take(uint(distExtra[d])); err != nil {
			return n, err
		}
		back := int(distBase[d]) + int(v)
		if back > n {
			// Before the stream's start: there is no preset dictionary.
			return n, errInflateHead
		}
		for ; length > 0 && n < len(out); length-- {
			out[n] = out[n-back]
			n++
		}
	}
	return n, nil
}

// huffCode is a canonical Huffman code given by its code lengths, decoded
// a bit at a time (as zlib's puff does): for the few symbols read here,
// cheaper than building a lookup table.
type huffCode struct {
	count  [16]uint16  // the number of codes of each length
	symbol [288]uint16 // the symbols, by code
}

// build makes the code of lengths, and reports whether compress/flate
// would take it: neither over-subscribed nor incomplete, but for a code
// with a single symbol of one bit, or none at all.
func (h *huffCode) build(lengths []uint8) bool {
	if !countLengths(&h.count, lengths) {
		return false
	}
	var offs [16]uint16
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	for sym, l := range lengths {
		if l != 0 {
			h.symbol[offs[l&15]] = uint16(sym)
			offs[l&15]++
		}
	}
	return true
}

// countLengths counts the codes of each length, and checks the code as
// compress/flate's huffmanDecoder.init does.
func countLengths(count *[16]uint16, lengths []uint8) bool {
	*count = [16]uint16{}
	for _, l := range lengths {
		count[l&15]++ // lengths are under 16
	}
	count[0] = 0
	left, longest := 1, 0
	for l := 1; l < 16; l++ {
		left = left<<1 - int(count[l])
		if left < 0 {
			return false // over-subscribed
		}
		if count[l] > 0 {
			longest = l
		}
	}
	return left == 0 || longest == 0 || longest == 1 && count[1] == 1
}

func (h *huffCode) decode(r *bitReader) (int, error) {
	code, first, index := 0, 0, 0
	for l := 1; l < 16; l++ {
		bit, err := r.take(1)
		if err != nil {
			return 0, err
		}
		code |= int(bit)
		count := int(h.count[l])
		if code-first < count {
			return int(h.symbol[index+code-first]), nil
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0, errInflateHead // not a code of the block
}

// smallCode is the code length code (lengths of at most 7 bits), decoded
// through a table by its next seven bits: it decodes three hundred
// symbols or so a block.
type smallCode struct {
	// table holds a symbol<<3 | its length, by the next 7 bits of input
	// (least significant first); 0: no code.
	table [128]uint8
}

func (c *smallCode) build(lengths []uint8) bool {
	var count [16]uint16
	if !countLengths(&count, lengths) {
		return false
	}
	// The first code of each length (RFC 1951 3.2.2).
	var next [8]int
	code := 0
	for l := 1; l < 8; l++ {
		code = (code + int(count[l-1])) << 1
		next[l] = code
	}
	for sym, l := range lengths {
		if l == 0 {
			continue
		}
		rev := reverseBits(next[l], uint(l))
		next[l]++
		for i := rev; i < len(c.table); i += 1 << l {
			c.table[i] = uint8(sym)<<3 | l
		}
	}
	return true
}

func (c *smallCode) decode(r *bitReader) (int, error) {
	r.fill(7)
	e := c.table[r.bits&127]
	l := uint(e & 7)
	if l == 0 {
		return 0, errInflateHead
	}
	if l > r.n {
		return 0, errShortInput
	}
	r.bits >>= l
	r.n -= l
	return int(e >> 3), nil
}

// reverseBits reverses the low n bits of v: Huffman codes are packed
// most significant bit first.
func reverseBits(v int, n uint) int {
	out := 0
	for range n {
		out = out<<1 | v&1
		v >>= 1
	}
	return out
}
