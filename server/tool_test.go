package server

import (
	"strings"
	"testing"
)

func TestValidToolName(t *testing.T) {
	for _, tt := range []struct {
		name string
		ok   bool
	}{
		{"read_file", true},
		{"a", true},
		{"a" + strings.Repeat("9", 63), true},
		{"", false},
		{"a" + strings.Repeat("9", 64), false},
		{"9lives", false},
		{"_x", false},
		{"Read", false},
		{"read-file", false},
		{"read file", false},
		{"read_filé", false},
		{"a\x00", false},
	} {
		if got := validToolName(tt.name); got != tt.ok {
			t.Errorf("validToolName(%q) = %v, want %v", tt.name, got, tt.ok)
		}
	}
}
