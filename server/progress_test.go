package server

import (
	"context"
	"math"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sent is a notification as the throttle let it out, with when.
type sent struct {
	At       time.Duration // since the first report
	Progress float64
	Message  string
}

// step is one action of a tool: wait, then report (or finish the call).
type step struct {
	wait   time.Duration
	done   float64
	finish bool
}

func TestProgressThrottle(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name  string
		steps []step
		want  []sent
	}{
		{
			name:  "a burst sends the first at once and the last before the result",
			steps: []step{{done: 1}, {done: 2}, {done: 3}, {done: 4}, {finish: true}},
			want:  []sent{{0, 1, "1"}, {0, 4, "4"}},
		},
		{
			name:  "a report within the interval waits for its end",
			steps: []step{{done: 1}, {wait: 100 * time.Millisecond, done: 2}, {wait: time.Second, finish: true}},
			want:  []sent{{0, 1, "1"}, {250 * time.Millisecond, 2, "2"}},
		},
		{
			name: "the newest report replaces the waiting one",
			steps: []step{{done: 1}, {wait: 100 * time.Millisecond, done: 2}, {wait: 100 * time.Millisecond, done: 3},
				{wait: time.Second, done: 4}, {finish: true}},
			want: []sent{{0, 1, "1"}, {250 * time.Millisecond, 3, "3"}, {1200 * time.Millisecond, 4, "4"}},
		},
		{
			name:  "reports spaced beyond the interval all go out",
			steps: []step{{done: 1}, {wait: 300 * time.Millisecond, done: 2}, {wait: 300 * time.Millisecond, done: 3}, {finish: true}},
			want:  []sent{{0, 1, "1"}, {300 * time.Millisecond, 2, "2"}, {600 * time.Millisecond, 3, "3"}},
		},
		{
			name: "reports that do not advance are dropped",
			steps: []step{{done: 1}, {wait: time.Second, done: 1}, {wait: time.Second, done: 0.5}, {wait: time.Second, done: nan},
				{wait: time.Second, done: 1.5}, {finish: true}},
			want: []sent{{0, 1, "1"}, {4 * time.Second, 1.5, "1.5"}},
		},
		{
			name:  "nothing after the result",
			steps: []step{{done: 1}, {wait: 100 * time.Millisecond, finish: true}, {wait: time.Second, done: 2}},
			want:  []sent{{0, 1, "1"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				var got []sent
				p := newProgressReporter(context.Background(), func(_ context.Context, u progressUpdate) error {
					got = append(got, sent{time.Since(start), u.done, u.message})
					return nil
				})
				for _, s := range tt.steps {
					time.Sleep(s.wait)
					if s.finish {
						p.finish()
						continue
					}
					p.report(progressUpdate{done: s.done, total: 10, message: formatFloat(s.done)})
				}
				time.Sleep(time.Minute) // any timer left would fire now
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("notifications (-want +got):\n%s", diff)
				}
			})
		})
	}
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// A call without a progress token has no reporter; reporting is a no-op.
func TestProgressWithoutToken(t *testing.T) {
	var r Request
	r.Progress(1, 2, "nobody listens")
	r.progress.finish()
}
