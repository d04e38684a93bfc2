package goindex

import "testing"

func TestFileConstraint(t *testing.T) {
	for _, tc := range []struct{ name, expr, want string }{
		{"a/file.go", "", ""},
		{"a/file.go", "linux && !race", "linux && !race"},
		{"a/file_linux.go", "", "linux"},
		{"a/file_linux_test.go", "", "linux"},
		{"a/file_windows_amd64.go", "", "windows && amd64"},
		{"a/file_arm64.go", "", "arm64"},
		{"a/file_linux.go", "cgo || race", "linux && (cgo || race)"},
		{"a/file_linux.go", "!purego", "linux && !purego"},
		{"linux.go", "", ""},                       // the first element never counts
		{"a/_linux.go", "", "linux"},               // an empty first element
		{"a/file_unix.go", "", ""},                 // unix is a build tag, not a file-name suffix
		{"a/file_test.go", "", ""},                 // _test alone
		{"a/file_amd64_linux.go", "", "linux"},     // GOARCH_GOOS: only the last element counts
		{"a/file_linux.s.go", "", "linux"},         // the name ends at the first dot
		{"a/file_linux.go", "((", "linux && ((()"}, // an expression that does not parse is kept as written
	} {
		if got := fileConstraint(tc.name, tc.expr); got != tc.want {
			t.Errorf("fileConstraint(%q, %q) = %q, want %q", tc.name, tc.expr, got, tc.want)
		}
	}
}
