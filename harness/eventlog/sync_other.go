//go:build !linux

package eventlog

import "os"

// syncData makes f durable; elsewhere than Linux, with a full fsync.
func syncData(f *os.File) error { return f.Sync() }
