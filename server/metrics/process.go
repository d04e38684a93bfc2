package metrics

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// userHZ is the unit of the CPU times and start time in /proc/PID/stat:
// USER_HZ, 100 on every Linux architecture Go supports.
const userHZ = 100

// procStat is what /proc/self/stat and /proc/stat tell of this process.
type procStat struct {
	cpuSeconds   float64
	startSeconds float64 // since the Unix epoch
	virtual      float64 // bytes
	resident     float64 // bytes
}

// readProcStat reads the process's CPU time, start, and memory from proc
// (normally /proc).
func readProcStat(proc string) (procStat, error) {
	data, err := os.ReadFile(proc + "/self/stat")
	if err != nil {
		return procStat{}, err
	}
	// The command name, field 2, is in parentheses and may hold spaces
	// or parentheses itself: the fields that follow start after the last ")".
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("%s/self/stat: no command name", proc)
	}
	f := strings.Fields(string(data[i+1:])) // f[0] is field 3, state
	if len(f) < 22 {
		return procStat{}, fmt.Errorf("%s/self/stat: %d fields", proc, len(f)+2)
	}
	n := make([]float64, len(f))
	for _, k := range []int{14, 15, 22, 23, 24} { // utime, stime, starttime, vsize, rss
		if n[k-3], err = strconv.ParseFloat(f[k-3], 64); err != nil {
			return procStat{}, fmt.Errorf("%s/self/stat field %d: %w", proc, k, err)
		}
	}
	boot, err := bootTime(proc)
	if err != nil {
		return procStat{}, err
	}
	return procStat{
		cpuSeconds:   (n[14-3] + n[15-3]) / userHZ,
		startSeconds: boot + n[22-3]/userHZ,
		virtual:      n[23-3],
		resident:     n[24-3] * float64(os.Getpagesize()),
	}, nil
}

// bootTime returns when the machine booted, in seconds since the Unix
// epoch, from the btime line of /proc/stat.
func bootTime(proc string) (float64, error) {
	data, err := os.ReadFile(proc + "/stat")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("%s/stat: no btime", proc)
}

// readNetDev returns the bytes received and sent over every interface of
// the process's network namespace, from /proc/self/net/dev, as the
// Prometheus client's process collector counts them.
func readNetDev(proc string) (rx, tx float64, err error) {
	data, err := os.ReadFile(proc + "/self/net/dev")
	if err != nil {
		return 0, 0, err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, line := range lines[min(2, len(lines)):] { // two lines of headings
		_, counts, ok := strings.Cut(line, ":")
		f := strings.Fields(counts)
		if !ok || len(f) < 9 {
			return 0, 0, fmt.Errorf("%s/self/net/dev: line %q", proc, line)
		}
		r, err1 := strconv.ParseFloat(f[0], 64) // receive bytes
		t, err2 := strconv.ParseFloat(f[8], 64) // transmit bytes
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("%s/self/net/dev: line %q", proc, line)
		}
		rx, tx = rx+r, tx+t
	}
	return rx, tx, nil
}

// writeProcess writes the process_* series the Prometheus client's process
// collector exposed, with the same names and help, in the same order. A
// series whose source cannot be read (no /proc: not Linux, or a sandbox)
// is left out, as that collector left it out.
func writeProcess(w *bufio.Writer, proc string) {
	st, statErr := readProcStat(proc)
	if statErr == nil {
		writeValue(w, "process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", counter, st.cpuSeconds)
	}
	if n, ok := rlimit(rlimitNoFile); ok {
		writeValue(w, "process_max_fds", "Maximum number of open file descriptors.", gauge, n)
	}
	if rx, tx, err := readNetDev(proc); err == nil {
		writeValue(w, "process_network_receive_bytes_total", "Number of bytes received by the process over the network.", counter, rx)
		writeValue(w, "process_network_transmit_bytes_total", "Number of bytes sent by the process over the network.", counter, tx)
	}
	if fds, err := os.ReadDir(proc + "/self/fd"); err == nil {
		writeValue(w, "process_open_fds", "Number of open file descriptors.", gauge, float64(len(fds)))
	}
	if statErr == nil {
		writeValue(w, "process_resident_memory_bytes", "Resident memory size in bytes.", gauge, st.resident)
		writeValue(w, "process_start_time_seconds", "Start time of the process since unix epoch in seconds.", gauge, st.startSeconds)
		writeValue(w, "process_virtual_memory_bytes", "Virtual memory size in bytes.", gauge, st.virtual)
	}
	if n, ok := rlimit(rlimitAS); ok {
		writeValue(w, "process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", gauge, n)
	}
}
