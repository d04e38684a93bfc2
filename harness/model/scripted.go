package model

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Step is one step of a Plan: a tool call, or the final answer.
type Step struct {
	// Tool names the tool to call: an alias the model was given, or the
	// suffix of one after "_" ("read_file" matches "repo_read_file"). A
	// name matching no offered tool is called as written.
	Tool string
	// Args are the call's arguments. A string value "$match:REGEXP" is
	// replaced by the first group of REGEXP in the newest tool result that
	// it matches (a patch_id that an earlier call returned, say).
	Args map[string]any
	// Answer ends the run: AnswerSummary or AnswerReport.
	Answer string
}

// Answer kinds.
const (
	// AnswerSummary: three sentences taken from the last file the model
	// read (the last successful result of a tool whose name has "read"
	// in it, or else the last successful result).
	AnswerSummary = "summary"
	// AnswerReport: one line per tool result, saying how it went.
	AnswerReport = "report"
)

// Plan is what a scripted model does, in order.
type Plan struct {
	Name  string
	Steps []Step
	// Extra arguments added to every call whose tool's schema has that
	// property and whose step does not set it (workspace_id, say).
	Extra map[string]any
}

// DemoPlan is the seed's task: list the files in the workspace, read
// README.md, and summarize it in three sentences.
func DemoPlan(extra map[string]any) Plan {
	return Plan{
		Name:  "demo",
		Extra: extra,
		Steps: []Step{
			{Tool: "list_files", Args: map[string]any{}},
			{Tool: "read_file", Args: map[string]any{"path": "README.md"}},
			{Answer: AnswerSummary},
		},
	}
}

// DemoTask is the task DemoPlan carries out.
const DemoTask = "List the files in the workspace, read README.md, then summarize it in three sentences."

// Scripted is a deterministic, offline model that follows a Plan. It is
// named as such wherever it appears ("scripted:<plan>"): it plans, it does
// not think.
type Scripted struct {
	plan Plan
}

// NewScripted returns a model that follows plan.
func NewScripted(plan Plan) *Scripted { return &Scripted{plan: plan} }

// Name returns "scripted:<plan name>".
func (s *Scripted) Name() string { return "scripted:" + s.plan.Name }

// Next takes the step the conversation has reached: the number of
// assistant messages so far.
func (s *Scripted) Next(ctx context.Context, req Request) (Reply, error) {
	if err := CheckPairs(req.Messages); err != nil {
		return Reply{}, err
	}
	k := 0
	for _, m := range req.Messages {
		if m.Role == Assistant {
			k++
		}
	}
	if k >= len(s.plan.Steps) {
		return Reply{Text: "The plan is complete.", Stop: "end_turn"}, nil
	}
	step := s.plan.Steps[k]
	switch step.Answer {
	case AnswerSummary:
		return Reply{Text: summaryAnswer(req.Messages), Stop: "end_turn"}, nil
	case AnswerReport:
		return Reply{Text: reportAnswer(req.Messages), Stop: "end_turn"}, nil
	}
	spec, name := find(req.Tools, step.Tool)
	args := maps.Clone(step.Args)
	if args == nil {
		args = map[string]any{}
	}
	for k, v := range s.plan.Extra {
		if _, set := args[k]; !set && hasProperty(spec, k) {
			args[k] = v
		}
	}
	if err := fillMatches(args, results(req.Messages)); err != nil {
		return Reply{}, fmt.Errorf("scripted model: step %d: %w", k, err)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return Reply{}, fmt.Errorf("scripted model: step %d: %w", k, err)
	}
	return Reply{Calls: []ToolCall{{ID: fmt.Sprintf("call_%d", k+1), Name: name, Arguments: raw}}, Stop: "tool_use"}, nil
}

// fillMatches replaces "$match:REGEXP" values (at the top level of args)
// by what REGEXP's first group finds in the newest result it matches.
func fillMatches(args map[string]any, rs []ToolResult) error {
	for k, v := range args {
		pattern, ok := strings.CutPrefix(fmt.Sprint(v), "$match:")
		if _, isString := v.(string); !ok || !isString {
			continue
		}
		re, err := regexp.Compile(pattern)
		if err != nil || re.NumSubexp() < 1 {
			return fmt.Errorf("argument %s: %q needs a regular expression with a group", k, pattern)
		}
		found := false
		for i := len(rs) - 1; i >= 0 && !found; i-- {
			if m := re.FindStringSubmatch(rs[i].Content); m != nil {
				args[k], found = m[1], true
			}
		}
		if !found {
			return fmt.Errorf("argument %s: no result matches %q", k, pattern)
		}
	}
	return nil
}

func find(tools []ToolSpec, want string) (*ToolSpec, string) {
	for i, t := range tools {
		if t.Name == want {
			return &tools[i], t.Name
		}
	}
	for i, t := range tools {
		if strings.HasSuffix(t.Name, "_"+want) {
			return &tools[i], t.Name
		}
	}
	return nil, want
}

func hasProperty(spec *ToolSpec, name string) bool {
	if spec == nil {
		return false
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(spec.InputSchema, &s)
	_, ok := s.Properties[name]
	return ok
}

// results returns the tool results of the conversation, in order.
func results(msgs []Message) []ToolResult {
	var out []ToolResult
	for _, m := range msgs {
		out = append(out, m.Results...)
	}
	return out
}

func summaryAnswer(msgs []Message) string {
	names := map[string]string{}
	for _, m := range msgs {
		for _, c := range m.Calls {
			names[c.ID] = c.Name
		}
	}
	rs := results(msgs)
	pick := -1
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].IsError {
			continue
		}
		if strings.Contains(names[rs[i].CallID], "read") {
			pick = i
			break
		}
		if pick < 0 {
			pick = i
		}
	}
	if pick >= 0 {
		sentences := Sentences(rs[pick].Content, 3)
		if len(sentences) == 0 {
			return "The file has no prose to summarize."
		}
		return strings.Join(sentences, " ")
	}
	if len(rs) > 0 {
		return "I could not read the file: " + firstLine(rs[len(rs)-1].Content)
	}
	return "I have nothing to summarize."
}

func reportAnswer(msgs []Message) string {
	var b strings.Builder
	calls := map[string]string{}
	for _, m := range msgs {
		for _, c := range m.Calls {
			calls[c.ID] = c.Name
		}
	}
	for _, r := range results(msgs) {
		status := "succeeded"
		if r.IsError {
			status = "failed"
		}
		fmt.Fprintf(&b, "%s %s: %s\n", calls[r.CallID], status, firstLine(r.Content))
	}
	return strings.TrimSpace(b.String())
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// Sentences returns the first n sentences of the prose of a Markdown
// text, as written: headings, code blocks, tables, lists and HTML are
// skipped; the lines of a paragraph are joined. When the text wraps its
// data in a fence of four or more backticks or tildes (as repo-mcp's
// read_file does), only the inside of that fence is read.
func Sentences(text string, n int) []string {
	var out []string
	for _, para := range paragraphs(unwrap(text)) {
		for _, s := range splitSentences(para) {
			if len(out) == n {
				return out
			}
			out = append(out, s)
		}
	}
	return out
}

// fence reports whether line opens or closes a fenced block: its marker
// ("```", "~~~~", ...) and whether anything follows it.
func fence(line string) (marker string, bare bool) {
	t := strings.TrimSpace(line)
	for _, c := range []string{"`", "~"} {
		i := 0
		for i < len(t) && t[i:i+1] == c {
			i++
		}
		if i >= 3 {
			return t[:i], strings.TrimSpace(t[i:]) == ""
		}
	}
	return "", false
}

// unwrap returns the inside of the first container fence (four or more
// marker characters on a line of its own) and the text itself otherwise.
func unwrap(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		m, bare := fence(l)
		if len(m) < 4 || !bare {
			continue
		}
		for j := len(lines) - 1; j > i; j-- {
			if c, bare := fence(lines[j]); bare && c == m {
				return strings.Join(lines[i+1:j], "\n")
			}
		}
	}
	return text
}

func paragraphs(text string) []string {
	var (
		out  []string
		cur  []string
		open string // the marker of the fenced block we are in
	)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		m, bare := fence(line)
		switch {
		case open != "":
			if bare && m[0] == open[0] && len(m) >= len(open) {
				open = ""
			}
		case m != "":
			open = m
			flush()
		case t == "":
			flush()
		case strings.HasPrefix(t, "#"), strings.HasPrefix(t, "|"), strings.HasPrefix(t, "<"),
			strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, ">"),
			strings.HasPrefix(line, "    "), strings.HasPrefix(line, "\t"), isNumbered(t):
			flush()
		default:
			cur = append(cur, t)
		}
	}
	flush()
	return out
}

func isNumbered(t string) bool {
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

// splitSentences cuts a paragraph after ".", "!" or "?" followed by a space
// and an upper-case letter, a digit or a quote, and after "。！？".
func splitSentences(p string) []string {
	var out []string
	start := 0
	for i, r := range p {
		end := -1
		switch r {
		case '。', '！', '？':
			end = i + utf8.RuneLen(r)
		case '.', '!', '?':
			rest := p[i+1:]
			if rest == "" {
				end = len(p)
			} else if strings.HasPrefix(rest, " ") {
				next, _ := utf8.DecodeRuneInString(strings.TrimLeft(rest, " "))
				if unicode.IsUpper(next) || unicode.IsDigit(next) || next == '`' || next == '"' {
					end = i + 1
				}
			}
		}
		if end > start {
			if s := strings.TrimSpace(p[start:end]); s != "" {
				out = append(out, s)
			}
			start = end
		}
	}
	if s := strings.TrimSpace(p[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
