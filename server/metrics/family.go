package metrics

import (
	"bufio"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// kind is a metric's type, as the exposition's TYPE line names it.
type kind string

const (
	counter   kind = "counter"
	gauge     kind = "gauge"
	histogram kind = "histogram"
)

// family is one metric: its series, one per combination of label values.
// Label values come from bounded sets (see the package doc), so the map
// does not grow without bound.
type family struct {
	name    string
	help    string
	kind    kind
	labels  []string  // in the order of their names, as they are written
	order   []int     // labels[i] is the order[i]th label callers pass
	buckets []float64 // upper bounds, ascending; histograms only

	mu     sync.Mutex
	series map[string]*series // by label values joined with labelSep
}

// series is one combination of label values and what was counted for it.
type series struct {
	values []string // in the order of f.labels
	value  float64  // counters and gauges
	counts []uint64 // histograms: observations per bucket, not cumulative; the last is +Inf's
	sum    float64
	count  uint64
}

// labelSep joins label values into a map key: a byte that valid UTF-8
// never contains, so distinct value lists never share a key.
const labelSep = "\xff"

// newFamily returns a metric whose callers pass label values in the order
// of labels. They are written sorted by label name, as the Prometheus
// client wrote them, so that scrapes before and after compare equal.
func newFamily(name, help string, k kind, labels ...string) *family {
	order := make([]int, len(labels))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(labels[a], labels[b]) })
	sorted := make([]string, len(labels))
	for i, j := range order {
		sorted[i] = labels[j]
	}
	return &family{name: name, help: help, kind: k, labels: sorted, order: order, series: make(map[string]*series)}
}

func newHistogram(name, help string, buckets []float64, labels ...string) *family {
	f := newFamily(name, help, histogram, labels...)
	f.buckets = buckets
	return f
}

// get returns the series of values, made on first use; f.mu is held.
func (f *family) get(values []string) *series {
	if len(values) != len(f.labels) {
		// Every call site passes a fixed number of values: a mismatch is
		// a programming error that no input can cause.
		panic(fmt.Sprintf("metrics: %s takes %d label values, got %d", f.name, len(f.labels), len(values)))
	}
	sorted := make([]string, len(values))
	for i, j := range f.order {
		sorted[i] = values[j]
	}
	key := strings.Join(sorted, labelSep)
	s := f.series[key]
	if s == nil {
		s = &series{values: sorted}
		if f.kind == histogram {
			s.counts = make([]uint64, len(f.buckets)+1)
		}
		f.series[key] = s
	}
	return s
}

// add adds delta to a counter's or a gauge's series.
func (f *family) add(delta float64, values ...string) {
	f.mu.Lock()
	f.get(values).value += delta
	f.mu.Unlock()
}

// observe records v in a histogram's series.
func (f *family) observe(v float64, values ...string) {
	i, _ := slices.BinarySearch(f.buckets, v) // the first bound >= v: buckets are "less or equal"
	f.mu.Lock()
	s := f.get(values)
	s.counts[i]++
	s.sum += v
	s.count++
	f.mu.Unlock()
}

// write writes the family in the text exposition format, its series in
// the order of their label values. A family with no series yet is left
// out, as the Prometheus client leaves out a vector nothing was counted in.
func (f *family) write(w *bufio.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.series) == 0 {
		return
	}
	writeHeader(w, f.name, f.help, f.kind)
	for _, key := range slices.Sorted(maps.Keys(f.series)) {
		s := f.series[key]
		if f.kind != histogram {
			writeSample(w, f.name, f.labels, s.values, "", "", s.value)
			continue
		}
		var cum uint64
		for i, n := range s.counts {
			cum += n
			le := "+Inf"
			if i < len(f.buckets) {
				le = formatFloat(f.buckets[i])
			}
			writeSample(w, f.name+"_bucket", f.labels, s.values, "le", le, float64(cum))
		}
		writeSample(w, f.name+"_sum", f.labels, s.values, "", "", s.sum)
		writeSample(w, f.name+"_count", f.labels, s.values, "", "", float64(s.count))
	}
}

// writeHeader writes a metric's HELP and TYPE lines.
func writeHeader(w *bufio.Writer, name, help string, k kind) {
	w.WriteString("# HELP " + name + " ")
	helpEscaper.WriteString(w, help)
	w.WriteString("\n# TYPE " + name + " " + string(k) + "\n")
}

// writeSample writes one sample line: name{labels} value. extraName, if
// not empty, is one more label after labels (a histogram's le, a
// summary's quantile).
func writeSample(w *bufio.Writer, name string, labels, values []string, extraName, extraValue string, v float64) {
	w.WriteString(name)
	if len(labels) > 0 || extraName != "" {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			writeLabel(w, l, values[i])
		}
		if extraName != "" {
			if len(labels) > 0 {
				w.WriteByte(',')
			}
			writeLabel(w, extraName, extraValue)
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

func writeLabel(w *bufio.Writer, name, value string) {
	w.WriteString(name + `="`)
	valueEscaper.WriteString(w, value)
	w.WriteByte('"')
}

// The escapes of the text format (version 0.0.4): HELP text escapes
// backslash and newline; label values also escape the double quote.
var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	valueEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// formatFloat writes v as the text format does: Go's shortest form, and
// +Inf, -Inf and NaN by those names.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
