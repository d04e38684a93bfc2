package patch

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/workspace"
)

// Edit is one change to the files of the base revision. Edits apply in
// order, each to the result of the ones before it.
type Edit struct {
	// Op is the kind of edit: "replace" (old_text by new_text in path), "write" (create or overwrite path with content), "delete" (remove path) or "rename" (move path to new_path).
	Op string `json:"op" jsonschema:"enum=replace,enum=write,enum=delete,enum=rename"`
	// Path is the file, relative to the repository root, with forward slashes.
	Path string `json:"path" jsonschema:"minLength=1,maxLength=4096"`
	// OldText is the exact text to replace (op replace). It must occur exactly once unless replace_all is set.
	OldText string `json:"old_text,omitempty"`
	// NewText is the text that replaces old_text (op replace); empty deletes it.
	NewText string `json:"new_text,omitempty"`
	// ReplaceAll replaces every occurrence of old_text (op replace).
	ReplaceAll bool `json:"replace_all,omitempty"`
	// Content is the whole new content of the file (op write).
	Content string `json:"content,omitempty"`
	// Executable makes a written file executable (op write; default: keep the mode, or not executable for a new file).
	Executable *bool `json:"executable,omitempty"`
	// NewPath is where the file moves (op rename).
	NewPath string `json:"new_path,omitempty" jsonschema:"maxLength=4096"`
}

// apply applies one edit to the overlay.
func (o *overlay) apply(ctx context.Context, i int, e Edit) error {
	wrap := func(err error) error {
		if se, ok := err.(*server.Error); ok {
			c := *se
			c.Message = fmt.Sprintf("edits[%d] (%s %s): %s", i, e.Op, e.Path, se.Message)
			return &c
		}
		return err
	}
	p, f, err := o.get(ctx, e.Path)
	if err != nil {
		return wrap(err)
	}
	switch e.Op {
	case "replace":
		err = replace(f, e)
	case "write":
		f.data, f.exists = []byte(e.Content), true
		switch {
		case e.Executable != nil && *e.Executable:
			f.mode = workspace.ModeExecutable
		case e.Executable != nil || f.mode == 0:
			f.mode = workspace.ModeFile
		}
	case "delete":
		if !f.exists {
			err = server.Errorf(server.InvalidInput, "the file does not exist")
		}
		f.exists, f.data = false, nil
	case "rename":
		err = o.rename(ctx, p, f, e.NewPath)
	default:
		err = server.Errorf(server.InvalidInput, "unknown op %q", e.Op)
	}
	return wrap(err)
}

func (o *overlay) rename(ctx context.Context, from string, f *ofile, newPath string) error {
	if newPath == "" {
		return server.Errorf(server.InvalidInput, "rename needs new_path")
	}
	if !f.exists {
		return server.Errorf(server.InvalidInput, "the file does not exist")
	}
	to, g, err := o.get(ctx, newPath)
	if err != nil {
		return err
	}
	if to == from {
		return server.Errorf(server.InvalidInput, "new_path is the same path")
	}
	if g.exists {
		return server.Errorf(server.InvalidInput, "new_path %q already exists; delete it first to replace it", to)
	}
	g.exists, g.mode, g.data = true, f.mode, f.data
	f.exists, f.data = false, nil
	return nil
}

// replace substitutes old_text in a file, refusing a missing or ambiguous
// match rather than guessing.
func replace(f *ofile, e Edit) error {
	switch {
	case !f.exists:
		return server.Errorf(server.InvalidInput, "the file does not exist; use op write to create it")
	case e.OldText == "":
		return server.Errorf(server.InvalidInput, "old_text is empty")
	}
	text := string(f.data)
	n := strings.Count(text, e.OldText)
	switch {
	case n == 0:
		return notFound(text, e.OldText)
	case n > 1 && !e.ReplaceAll:
		lines := occurrenceLines(text, e.OldText)
		return server.Errorf(server.InvalidInput, "old_text occurs %d times, at lines %s; add context to make it unique, or set replace_all",
			n, joinInts(lines)).WithHint("nothing was changed: an ambiguous edit is never applied to the first match")
	}
	if e.ReplaceAll {
		text = strings.ReplaceAll(text, e.OldText, e.NewText)
	} else {
		text = strings.Replace(text, e.OldText, e.NewText, 1)
	}
	f.data = []byte(text)
	return nil
}

// occurrenceLines returns the 1-based line of each occurrence of sub.
func occurrenceLines(text, sub string) []int {
	var out []int
	line, off := 1, 0
	for {
		i := strings.Index(text[off:], sub)
		if i < 0 || len(out) >= 100 {
			return out
		}
		line += strings.Count(text[off:off+i], "\n")
		out = append(out, line)
		line += strings.Count(sub, "\n")
		off += i + len(sub)
	}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// notFound reports a missing old_text with the line of the file that
// resembles its first non-blank line most.
func notFound(text, old string) error {
	want := ""
	for l := range strings.SplitSeq(old, "\n") {
		if strings.TrimSpace(l) != "" {
			want = strings.TrimSpace(l)
			break
		}
	}
	bestLine, bestScore, bestText := 0, -1, ""
	for i, l := range strings.Split(text, "\n") {
		if score := similarity(strings.TrimSpace(l), want); score > bestScore {
			bestLine, bestScore, bestText = i+1, score, l
		}
	}
	msg := "old_text was not found"
	if strings.Join(strings.Fields(text), " ") != "" && strings.Contains(strings.Join(strings.Fields(text), " "), strings.Join(strings.Fields(old), " ")) {
		msg += " exactly, but it occurs with different whitespace"
	}
	if bestScore > 0 {
		return server.Errorf(server.InvalidInput, "%s; the closest line is %d: %q", msg, bestLine, truncate(bestText, 200)).
			WithHint("read the file again and copy old_text exactly, including whitespace")
	}
	return server.Errorf(server.InvalidInput, "%s, and no line resembles it", msg)
}

// similarity scores how alike two lines are: the length of their longest
// common subsequence of runes, bounded to keep it cheap.
func similarity(a, b string) int {
	ra, rb := []rune(truncate(a, 80)), []rune(truncate(b, 80))
	if len(ra) == 0 || len(rb) == 0 {
		return 0
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			switch {
			case ra[i-1] == rb[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
