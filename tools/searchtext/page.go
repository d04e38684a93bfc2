package searchtext

import (
	"bytes"
	"context"
)

// page fills out's matches or files: the page that starts after cur, in
// (path, line) order, of at most in.Limit entries and maxPageBytes of
// text, ending before the frontier when the time budget cut the search.
func (r *run) page(ctx context.Context, in SearchTextIn, out *SearchTextOut) error {
	cur, verdicts := r.cur, r.verdicts
	limit := in.Limit
	if limit == 0 {
		limit = DefaultLimit
	}
	// A cursor of a search that was cut (this page or an earlier one)
	// tells the next page to go on from its path.
	rest := cur.Rest || r.frontier >= 0
	next := func(c cursor) {
		c.Key, c.Rest = r.key, rest
		out.Truncated, out.NextCursor = true, c.encode()
	}
	end := len(r.files)
	if r.frontier >= 0 {
		end = r.frontier
		defer func() {
			if !out.Truncated {
				next(cursor{Path: r.files[r.frontier].path, At: true})
			}
		}()
	}
	switch in.Output {
	case "count":
		return nil
	case "files":
		for i, f := range r.files[:end] {
			if verdicts[i].lines == 0 || in.Cursor != "" && !cur.fileAfter(f.path) {
				continue
			}
			if len(out.Files) == limit {
				next(cursor{Path: out.Files[len(out.Files)-1].Path})
				return nil
			}
			out.Files = append(out.Files, FileCount{Path: f.path, Matches: verdicts[i].lines})
		}
		return nil
	}
	bytesShown := 0
	for i, f := range r.files[:end] {
		if verdicts[i].lines == 0 || in.Cursor != "" && f.path < cur.Path {
			continue
		}
		data, err := r.read(ctx, f)
		if err != nil {
			return err
		}
		full := false
		r.m.eachLine(data, func(line, start, end, col int) bool {
			if in.Cursor != "" && !cur.after(f.path, line) {
				return true
			}
			if len(out.Matches) == limit || bytesShown > maxPageBytes {
				full = true
				return false
			}
			m := Match{Path: f.path, Line: line, Column: col}
			m.Text, m.Cut = showLine(data[start:end], col)
			m.Before, m.After = contextLines(data, start, end, in.Before, in.After)
			bytesShown += len(m.Text) + len(m.Path) + 32
			for _, l := range m.Before {
				bytesShown += len(l)
			}
			for _, l := range m.After {
				bytesShown += len(l)
			}
			out.Matches = append(out.Matches, m)
			return true
		})
		if full {
			last := out.Matches[len(out.Matches)-1]
			next(cursor{Path: last.Path, Line: last.Line})
			return nil
		}
	}
	return nil
}

// contextLines returns up to before lines preceding the line [start, end)
// of data and up to after lines following it, shown as match lines are.
func contextLines(data []byte, start, end, before, after int) (pre, post []string) {
	for s := start; len(pre) < before && s > 0; {
		e := s - 1 // the newline ending the previous line
		s = bytes.LastIndexByte(data[:e], '\n') + 1
		text, _ := showLine(data[s:e], 1)
		pre = append(pre, text)
	}
	for i, j := 0, len(pre)-1; i < j; i, j = i+1, j-1 {
		pre[i], pre[j] = pre[j], pre[i]
	}
	for e := end; len(post) < after && e < len(data); {
		s := e + 1
		if s >= len(data) {
			break
		}
		e = len(data)
		if k := bytes.IndexByte(data[s:], '\n'); k >= 0 {
			e = s + k
		}
		text, _ := showLine(data[s:e], 1)
		post = append(post, text)
	}
	return pre, post
}
