package client

import (
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestLargeAnswersAreDecodedByTheirCaller checks that the reader hands a
// large answer to its caller undecoded, and decodes anything else itself:
// small answers, frames whose buffer it will reuse, and frames that do not
// lead with a response's members (a notification). A frame handed off that is not an
// answer after all ends the call as a bad result and is counted as the
// reader would have counted it.
func TestLargeAnswersAreDecodedByTheirCaller(t *testing.T) {
	big := strings.Repeat("line\t\"quoted\"\n", minHandOff/8)
	quoted, _ := json.Marshal(big)
	frameText := textBlock(string(quoted))
	for _, tc := range []struct {
		name      string
		line      string
		owned     bool
		handedOff bool
		want      string // the text the call returns; "" for a bad result
	}{
		{"large", frameText, true, true, big},
		{"small", textBlock(`"hi"`), true, false, "hi"},
		{"buffer reused", frameText, false, false, big},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":` + string(quoted) + `}}`, true, false, ""},
		{"broken after its head", frameText[:len(frameText)-2], true, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newConn(Options{}.withDefaults(), slog.New(slog.DiscardHandler))
			p := &pending{reply: make(chan reply, 1)}
			c.register(7, p)
			c.handleFrame(frame{line: []byte(tc.line), owned: tc.owned, size: int64(len(tc.line))})
			var r reply
			select {
			case r = <-p.reply:
			default:
				if tc.want != "" || tc.handedOff {
					t.Fatal("no reply")
				}
				return // not an answer: routed by the reader, as before
			}
			if got := r.frame != nil; got != tc.handedOff {
				t.Fatalf("handed off %v, want %v", got, tc.handedOff)
			}
			var res *Result
			err := c.settle(&CallError{ID: 7}, r, func(a answer) error {
				var err error
				res, err = a.call.result(a.raw)
				return err
			})
			if tc.want == "" {
				var ce *CallError
				if !errors.As(err, &ce) || ce.Outcome != BadResult || c.stats.nonJSON.Load() != 1 {
					t.Fatalf("err %v, %d non-JSON frames; want a bad result and one counted", err, c.stats.nonJSON.Load())
				}
				return
			}
			if err != nil || res.Text() != tc.want {
				t.Fatalf("err %v, text %.40q; want %.40q", err, res.Text(), tc.want)
			}
		})
	}
}
