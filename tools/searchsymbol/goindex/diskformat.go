package goindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"unsafe"
)

// A cache file (see diskCache) is a header and a payload. The header is:
//
//	magic "GOIX", format version u32, byte order mark u32, payload CRC-32C
//	u32, payload length u64
//
// The payload holds an index's tables exactly as they are in memory (see
// tables.go), each starting at a multiple of 8 bytes:
//
//	id                       16 bytes
//	counts                   u64 each: parse failures, and the lengths of
//	                         the revision, the options key, strs, files,
//	                         syms, entries, names and slots
//	revision, options key    bytes
//	strs                     bytes
//	files, syms, entries, names, byName, masks, slots   records
//
// Numbers are in the byte order of the machine that wrote the file, which
// the byte order mark tells; a file of the other order is a miss. The
// file is mapped into memory and the tables are slices of it, so that a
// loaded index decodes nothing: loading is a checksum and a consistency
// check of the tables (Index.check).

var errCorrupt = errors.New("corrupt cache file")

const (
	diskMagic  = "GOIX"
	headerSize = 4 + 4 + 4 + 4 + 8
	byteOrder  = 0x01020304
	align      = 8
	numCounts  = 9
)

// castagnoli is made at first use, not at package init, which every
// command of the binary would pay for.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

var order = binary.NativeEndian

// encodeIndex returns the contents of x's cache file, header included.
func encodeIndex(x *Index) []byte {
	key := x.opts.key()
	counts := [numCounts]uint64{uint64(x.facts.ParseFailures), uint64(len(x.revision)), uint64(len(key)),
		uint64(len(x.strs)), uint64(len(x.files)), uint64(len(x.syms)), uint64(len(x.entries)),
		uint64(len(x.names)), uint64(len(x.slots))}
	sections := [][]byte{[]byte(x.revision), []byte(key), []byte(x.strs),
		asBytes(x.files), asBytes(x.syms), asBytes(x.entries), asBytes(x.names),
		asBytes(x.byName), asBytes(x.masks), asBytes(x.slots)}
	size := headerSize + len(x.id) + 8*numCounts
	for _, s := range sections {
		size += padded(len(s))
	}
	buf := make([]byte, headerSize, size)
	buf = append(buf, x.id[:]...)
	for _, c := range counts {
		buf = order.AppendUint64(buf, c)
	}
	for _, s := range sections {
		buf = append(buf, s...)
		buf = append(buf, make([]byte, padded(len(s))-len(s))...)
	}
	payload := buf[headerSize:]
	copy(buf, diskMagic)
	order.PutUint32(buf[4:], diskVersion)
	order.PutUint32(buf[8:], byteOrder)
	order.PutUint32(buf[12:], crc32.Checksum(payload, castagnoli()))
	order.PutUint64(buf[16:], uint64(len(payload)))
	return buf
}

// decodeIndex returns the index that data, a whole cache file, holds,
// checking that it is of rev and opts, intact and consistent. The index's
// tables and strings are slices of data, which must be aligned to 8 bytes
// and never change.
func decodeIndex(data []byte, rev string, opts Options) (*Index, error) {
	if len(data) < headerSize || string(data[:4]) != diskMagic ||
		order.Uint32(data[4:]) != diskVersion || order.Uint32(data[8:]) != byteOrder ||
		order.Uint64(data[16:]) != uint64(len(data)-headerSize) {
		return nil, fmt.Errorf("header: %w", errCorrupt)
	}
	if uintptr(unsafe.Pointer(unsafe.SliceData(data)))%align != 0 {
		return nil, errors.New("goindex: cache data is not aligned")
	}
	payload := data[headerSize:]
	if crc32.Checksum(payload, castagnoli()) != order.Uint32(data[12:]) {
		return nil, fmt.Errorf("checksum: %w", errCorrupt)
	}
	d := decoder{b: payload}
	x := &Index{revision: rev, opts: opts}
	copy(x.id[:], d.bytes(len(x.id)))
	var counts [numCounts]uint64
	for i := range counts {
		counts[i] = order.Uint64(d.bytes(8))
	}
	if d.err != nil || counts[0] > uint64(len(payload)) {
		return nil, errCorrupt
	}
	x.facts = Facts{Revision: rev, ParseFailures: int(counts[0]), From: FromDisk}
	if string(d.bytes(int(min(counts[1], uint64(len(payload)))))) != rev ||
		string(d.bytes(int(min(counts[2], uint64(len(payload)))))) != opts.key() {
		return nil, fmt.Errorf("revision or options: %w", errCorrupt)
	}
	if strs := d.bytes(int(min(counts[3], uint64(len(payload))))); len(strs) > 0 {
		x.strs = unsafe.String(&strs[0], len(strs))
	}
	x.files = view[fileRec](&d, counts[4])
	x.syms = view[symRec](&d, counts[5])
	x.entries = view[entryRef](&d, counts[6])
	x.names = view[nameRec](&d, counts[7])
	x.byName = view[int32](&d, counts[6])
	x.masks = view[uint64](&d, counts[7])
	x.slots = view[int32](&d, counts[8])
	if d.err != nil || len(d.b) != 0 {
		return nil, errCorrupt
	}
	if err := x.check(); err != nil {
		return nil, err
	}
	x.facts.Files, x.facts.Symbols = len(x.files), len(x.entries)
	return x, nil
}

// padded returns n rounded up to the alignment of sections.
func padded(n int) int { return (n + align - 1) &^ (align - 1) }

// asBytes returns the memory of s. The record types have no pointers and
// no implicit padding, so their bytes are all there is to them.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// decoder takes the sections of a payload in turn. After an error, it
// returns empty sections.
type decoder struct {
	b   []byte
	err error
}

// bytes returns the next section of n bytes, and skips its padding.
func (d *decoder) bytes(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b) {
		d.err = errCorrupt
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[min(padded(n), len(d.b)):]
	return s
}

// view returns the next section as n records of type T.
func view[T any](d *decoder, n uint64) []T {
	var zero T
	size := uint64(unsafe.Sizeof(zero))
	if n > uint64(len(d.b))/size {
		d.err = errCorrupt
		return nil
	}
	b := d.bytes(int(n * size))
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
