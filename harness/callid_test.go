package harness

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/repo-mcp/repo-mcp/harness/eventlog"
	"github.com/repo-mcp/repo-mcp/harness/model"
)

func TestUniqueCallIDs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ids     string // as the model gave them, comma-separated
		want    string
		renamed []eventlog.RenamedCall
	}{
		{"distinct", "a,b", "a,b", nil},
		{"one shared", "a,a", "a,harness_3_2", []eventlog.RenamedCall{{Index: 1, From: "a", To: "harness_3_2"}}},
		{"missing", ",b,", "harness_3_1,b,harness_3_3", []eventlog.RenamedCall{{Index: 0, From: "", To: "harness_3_1"}, {Index: 2, From: "", To: "harness_3_3"}}},
		{"the new name is taken", "x,x,harness_3_2", "x,harness_3_2_2,harness_3_2", []eventlog.RenamedCall{{Index: 1, From: "x", To: "harness_3_2_2"}}},
		{"three alike", "a,a,a", "a,harness_3_2,harness_3_3", []eventlog.RenamedCall{{Index: 1, From: "a", To: "harness_3_2"}, {Index: 2, From: "a", To: "harness_3_3"}}},
	} {
		var calls []model.ToolCall
		for id := range strings.SplitSeq(tc.ids, ",") {
			calls = append(calls, model.ToolCall{ID: id, Name: "t"})
		}
		renamed := uniqueCallIDs(calls, 3)
		var got []string
		for _, c := range calls {
			got = append(got, c.ID)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: ids %v; want %s", tc.name, got, tc.want)
		}
		if d := cmp.Diff(tc.renamed, renamed); d != "" {
			t.Errorf("%s: renamed (-want +got):\n%s", tc.name, d)
		}
	}
}
