package workspace

import (
	"encoding/binary"
	"testing"
)

// TestMurmur3 checks the hash against MurmurHash3_x86_32's published
// vectors, every tail length included.
func TestMurmur3(t *testing.T) {
	for _, tc := range []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"", 0, 0},
		{"", 1, 0x514e28b7},
		{"", 0xffffffff, 0x81f16f39},
		{"\x00\x00\x00\x00", 0, 0x2362f9de},
		{"a", 0x9747b28c, 0x7fa09ea6},
		{"aa", 0x9747b28c, 0x5d211726},
		{"aaa", 0x9747b28c, 0x283e0130},
		{"aaaa", 0x9747b28c, 0x5a97808a},
		{"Hello, world!", 0x9747b28c, 0x24884cba},
		{"The quick brown fox jumps over the lazy dog", 0x9747b28c, 0x2fa826cd},
	} {
		if got := murmur3([]byte(tc.in), tc.seed); got != tc.want {
			t.Errorf("murmur3(%q, %#x) = %#x, want %#x", tc.in, tc.seed, got, tc.want)
		}
	}
}

// graphFile builds a commit-graph file of one commit per filter, holding
// only what the filters are read from: the fanout, BIDX and BDAT.
func graphFile(version uint32, filters ...[]byte) []byte {
	fanout := make([]byte, 256*4)
	for i := range 256 {
		binary.BigEndian.PutUint32(fanout[i*4:], uint32(len(filters)))
	}
	var index []byte
	data := binary.BigEndian.AppendUint32(nil, version)
	data = binary.BigEndian.AppendUint32(data, 7)  // hashes per path
	data = binary.BigEndian.AppendUint32(data, 10) // bits per path
	for _, f := range filters {
		data = append(data, f...)
		index = binary.BigEndian.AppendUint32(index, uint32(len(data)-bloomHeaderBytes))
	}
	ids, bodies := []string{"OIDF", "BIDX", "BDAT"}, [][]byte{fanout, index, data}
	file := []byte{'C', 'G', 'P', 'H', 1, 1, byte(len(ids)), 0}
	off := uint64(len(file) + (len(ids)+1)*chunkEntryBytes)
	for i, id := range append(ids, "\x00\x00\x00\x00") {
		file = append(file, id...)
		file = binary.BigEndian.AppendUint64(file, off)
		if i < len(bodies) {
			off += uint64(len(bodies[i]))
		}
	}
	for _, b := range bodies {
		file = append(file, b...)
	}
	return file
}

// TestBloomFallbacks checks when a filter may rule a commit out: only
// when it was computed, and for version 1 only for ASCII paths (its
// hashes of other bytes depended on the platform's char).
func TestBloomFallbacks(t *testing.T) {
	empty := []byte{0}      // computed: nothing changed
	tooMany := []byte{0xff} // git's filter for too many changes
	notComputed := []byte{} // --max-new-filters left it out
	for _, tc := range []struct {
		name    string
		version uint32
		path    string
		pos     uint32
		want    bool
	}{
		{"computed, unchanged", 1, "a/b.go", 0, false},
		{"too many changes", 1, "a/b.go", 1, true},
		{"not computed", 1, "a/b.go", 2, true},
		{"past the layer", 1, "a/b.go", 3, true},
		{"version 1, non-ASCII path", 1, "a/é.go", 0, true},
		{"version 2, non-ASCII path", 2, "a/é.go", 0, false},
		{"unknown version", 3, "a/b.go", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bloomFilters
			b.addLayer(graphFile(tc.version, empty, tooMany, notComputed), 0)
			if got := newBloomQuery(tc.path).maybeChanged(&b, tc.pos); got != tc.want {
				t.Errorf("maybeChanged(%q, %d) = %v, want %v", tc.path, tc.pos, got, tc.want)
			}
		})
	}
}
