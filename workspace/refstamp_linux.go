package workspace

import "syscall"

// The fields of a stat's times are named per system.
func statMtime(st *syscall.Stat_t) int64 { return st.Mtim.Nano() }
func statCtime(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
