package jsonscan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMembers(t *testing.T) {
	type member struct{ Key, Value string }
	for _, tc := range []struct {
		name string
		obj  string
		want []member
	}{
		{"object", `{"a": 1, "b": {"c": [2, "}"]}, "d": null}`, []member{{"a", "1"}, {"b", `{"c": [2, "}"]}`}, {"d", "null"}}},
		{"escaped key", `{"\u0069d": "x", "a\"b": true}`, []member{{"id", `"x"`}, {`a"b`, "true"}}},
		{"duplicates kept in order", `{"a": 1, "a": 2}`, []member{{"a", "1"}, {"a", "2"}}},
		{"empty", `{}`, nil},
		{"not an object", `[1, 2]`, nil},
		{"cut inside a value", `{"jsonrpc": "2.0", "id": 7, "params": {"text": "abc`, []member{{"jsonrpc", `"2.0"`}, {"id", "7"}}},
		{"cut inside a key", `{"id": "x", "met`, []member{{"id", `"x"`}}},
		{"stops at a syntax error", `{"a": 1, "b": tru, "c": 3}`, []member{{"a", "1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []member
			for k, v := range Members([]byte(tc.obj)) {
				got = append(got, member{k, string(v)})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Members(%s) (-want +got):\n%s", tc.obj, diff)
			}
		})
	}
}

func TestMembersStopsWhenAsked(t *testing.T) {
	n := 0
	for range Members([]byte(`{"a": 1, "b": 2, "c": 3}`)) {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("yielded %d members after break at 2", n)
	}
}

func TestDepth(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want int
	}{
		{`1`, 0},
		{`{}`, 1},
		{`{"a": [1, {"b": []}]}`, 4},
		{`{"a": "[[[{{{"}`, 1},
		{`{"a": "\"[[[[", "b": [[]]}`, 3},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), 100},
	} {
		if got := Depth([]byte(tc.raw)); got != tc.want {
			t.Errorf("Depth(%s) = %d, want %d", tc.raw, got, tc.want)
		}
	}
}
