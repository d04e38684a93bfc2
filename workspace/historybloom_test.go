package workspace

import "testing"

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
