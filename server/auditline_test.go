package server

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAuditLineIsSlogs holds appendAuditLine to the bytes slog's JSON
// handler writes for the same record, on strings holding every ASCII byte,
// invalid UTF-8, line and paragraph separators and HTML's special
// characters, on integers at their bounds, and on times of other zones and
// precisions; and checks that it declines what it does not write as slog
// does.
func TestAuditLineIsSlogs(t *testing.T) {
	var ascii []byte
	for c := range 128 {
		ascii = append(ascii, byte(c))
	}
	strs := []string{"", "read_file", "a\"b\\c", "<a href='x'>&amp;</a>", "\t\n\r\x00\x1f\x7f",
		"caf\u00e9 \u2028 \u2029 \U0001F600", "bad \xff\xfe utf-8 \xe2\x82", string(ascii[:8]) + string(ascii[9:12]) + string(ascii[13:])}
	zone := time.FixedZone("x", -(3*3600 + 30*60))
	times := []time.Time{
		time.Date(2026, 12, 2, 13, 45, 6, 789012345, time.UTC),
		time.Date(2026, 12, 2, 13, 45, 6, 0, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 100, zone),
		time.Now(),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		at := times[i%len(times)]
		var attrs []slog.Attr
		for j := range 1 + rng.IntN(12) {
			key := strs[rng.IntN(len(strs))]
			if key == "" {
				key = "k"
			}
			switch j % 6 {
			case 0:
				attrs = append(attrs, slog.String(key, strs[rng.IntN(len(strs))]))
			case 1:
				attrs = append(attrs, slog.Int64(key, []int64{0, -1, math.MinInt64, math.MaxInt64, rng.Int64()}[rng.IntN(5)]))
			case 2:
				attrs = append(attrs, slog.Uint64(key, []uint64{0, math.MaxUint64, rng.Uint64()}[rng.IntN(3)]))
			case 3:
				attrs = append(attrs, slog.Bool(key, rng.IntN(2) == 0))
			case 4:
				attrs = append(attrs, slog.Duration(key, time.Duration(rng.Int64())))
			case 5:
				attrs = append(attrs, slog.Int(key, rng.IntN(1<<20)))
			}
		}
		msg := strs[rng.IntN(len(strs))]
		got, ok := appendAuditLine(nil, at, msg, attrs)
		if !ok {
			t.Fatalf("appendAuditLine declined %q %v", msg, attrs)
		}
		if want := slogLine(t, at, msg, attrs); !bytes.Equal(got, want) {
			t.Fatalf("appendAuditLine wrote\n%s\nslog writes\n%s", got, want)
		}
	}

	for _, tc := range []struct {
		msg   string
		attrs []slog.Attr
	}{
		{"form\ffeed", nil},
		{"m", []slog.Attr{slog.String("k", "back\bspace")}},
		{"m", []slog.Attr{slog.Float64("k", 0.1)}},
		{"m", []slog.Attr{slog.Any("k", []int{1})}},
		{"m", []slog.Attr{slog.Group("g", slog.Int("k", 1))}},
		{"m", []slog.Attr{slog.Time("k", times[0])}},
		{"m", []slog.Attr{{}}},
	} {
		if got, ok := appendAuditLine(nil, times[0], tc.msg, tc.attrs); ok {
			t.Errorf("appendAuditLine(%q, %v) = %s; want it declined (slog writes %s)", tc.msg, tc.attrs, got, slogLine(t, times[0], tc.msg, tc.attrs))
		}
	}
}

// slogLine is what slog.NewJSONHandler writes for a record of msg and
// attrs at level INFO made at at.
func slogLine(t *testing.T, at time.Time, msg string, attrs []slog.Attr) []byte {
	t.Helper()
	var buf bytes.Buffer
	r := slog.NewRecord(at, slog.LevelInfo, msg, 0)
	r.AddAttrs(attrs...)
	if err := slog.NewJSONHandler(&buf, nil).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
