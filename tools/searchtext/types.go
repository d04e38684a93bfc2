package searchtext

import (
	"fmt"
	"strings"

	"github.com/repo-mcp/repo-mcp/tools/toolkit"
)

// SearchTextIn is what search_text takes.
type SearchTextIn struct {
	toolkit.Target
	// Pattern is the text to find: a literal string, or an RE2 regular expression when mode is regexp. It matches within one line.
	Pattern string `json:"pattern" jsonschema:"minLength=1,maxLength=1000"`
	// Mode is literal (default) or regexp (RE2 syntax: no backreferences or lookaround).
	Mode string `json:"mode,omitempty" jsonschema:"enum=literal,enum=regexp"`
	// Case is sensitive (default), insensitive, or smart: insensitive unless the pattern holds an upper-case letter.
	Case string `json:"case,omitempty" jsonschema:"enum=sensitive,enum=insensitive,enum=smart"`
	// WholeWord matches only where the pattern starts and ends at word boundaries.
	WholeWord bool `json:"whole_word,omitempty"`
	// Include keeps only files matching one of these globs (** spans directories; a pattern without a slash matches base names).
	Include []string `json:"include,omitempty" jsonschema:"maxItems=32,maxLength=512"`
	// Exclude leaves out files matching any of these globs.
	Exclude []string `json:"exclude,omitempty" jsonschema:"maxItems=32,maxLength=512"`
	// Languages keeps only files of these languages, by file extension.
	Languages []string `json:"languages,omitempty" jsonschema:"maxItems=16,enum=go,enum=md,enum=yaml,enum=json,enum=toml,enum=proto,enum=sh,enum=py,enum=js,enum=ts,enum=c,enum=cpp,enum=java,enum=rust,enum=html,enum=css,enum=sql,enum=txt"`
	// Output is matches (default: each matching line), files (paths with their number of matching lines) or count (totals only).
	Output string `json:"output,omitempty" jsonschema:"enum=matches,enum=files,enum=count"`
	// Before is the number of lines of context shown before each match, at most 10.
	Before int `json:"before,omitempty" jsonschema:"minimum=0,maximum=10"`
	// After is the number of lines of context shown after each match, at most 10.
	After int `json:"after,omitempty" jsonschema:"minimum=0,maximum=10"`
	// Limit is the most matches (or files) one page holds. Default 100; at most 2000.
	Limit int `json:"limit,omitempty" jsonschema:"minimum=1,maximum=2000"`
	// Cursor continues a search: the next_cursor of the previous page, with the same other arguments.
	Cursor string `json:"cursor,omitempty" jsonschema:"maxLength=2048"`
}

// SearchTextOut is one page of results, in (path, line) order.
type SearchTextOut struct {
	// Revision is the full commit SHA searched, or "worktree".
	Revision string `json:"revision"`
	// Matches are this page's matching lines (output matches).
	Matches []Match `json:"matches,omitempty"`
	// Files are this page's matching files with their number of matching lines (output files).
	Files []FileCount `json:"files,omitempty"`
	// TotalMatches is the number of matching lines in all pages; once the time budget cut a page of this search, in the files from this page's start to where it was cut.
	TotalMatches int `json:"total_matches"`
	// TotalFiles is the number of files with a match, counted as TotalMatches is.
	TotalFiles int `json:"total_files"`
	// Complete says the totals are exact; when false, the time budget cut the search: the totals are lower bounds ("at least"), and next_cursor resumes exactly where it stopped.
	Complete bool `json:"complete"`
	// Truncated says more results follow this page.
	Truncated bool `json:"truncated"`
	// NextCursor continues the search when it is truncated.
	NextCursor string `json:"next_cursor,omitempty"`
	// Skipped counts the files that were not searched.
	Skipped Skipped `json:"skipped"`
	// Index describes how the index served the search.
	Index IndexFacts `json:"index"`
}

// Match is one matching line.
type Match struct {
	Path string `json:"path"`
	// Line is 1-based.
	Line int `json:"line"`
	// Column is the 1-based byte column of the first match in the line.
	Column int `json:"column"`
	// Text is the line, cut around the match to a bound (with … where cut); bytes that are not UTF-8 text, and control characters, are shown as \xNN.
	Text string `json:"text"`
	// Cut says Text is part of the line.
	Cut bool `json:"cut,omitempty"`
	// Before holds the context lines before the match, shown as Text is.
	Before []string `json:"before,omitempty"`
	// After holds the context lines after the match.
	After []string `json:"after,omitempty"`
}

// FileCount is one matching file.
type FileCount struct {
	Path string `json:"path"`
	// Matches is the number of matching lines.
	Matches int `json:"matches"`
}

// Skipped counts files that were not searched.
type Skipped struct {
	// Binary counts files with a NUL byte in their first 8000 bytes.
	Binary int `json:"binary"`
	// TooLarge counts files over the size bound.
	TooLarge int `json:"too_large"`
	// MaxFileBytes is the size bound.
	MaxFileBytes int64 `json:"max_file_bytes"`
}

// IndexFacts describe how the index served a search.
type IndexFacts struct {
	// Files is the number of files the search considered, after policy and path filters.
	Files int `json:"files"`
	// Candidates is the number of files read and matched: those the index could not rule out, and those it does not know yet.
	Candidates int `json:"candidates"`
	// Unindexed is the number of files scanned because the index does not know their content yet, or because they differ from HEAD in the working tree.
	Unindexed int `json:"unindexed"`
	// Building says an index build of this revision's new content is running.
	Building bool `json:"building,omitempty"`
}

// Text renders the page as grep does: path:line:column:text.
func (o SearchTextOut) Text() string {
	var b strings.Builder
	at := "exactly"
	if !o.Complete {
		at = "at least"
	}
	fmt.Fprintf(&b, "%s %s in %s at %s", at, toolkit.Count(o.TotalMatches, "matching line", "matching lines"), toolkit.Count(o.TotalFiles, "file", "files"), o.Revision)
	if o.Skipped.Binary+o.Skipped.TooLarge > 0 {
		fmt.Fprintf(&b, " (skipped %d binary, %d over %d bytes)", o.Skipped.Binary, o.Skipped.TooLarge, o.Skipped.MaxFileBytes)
	}
	b.WriteString("\n")
	for _, m := range o.Matches {
		for i, l := range m.Before {
			fmt.Fprintf(&b, "%s-%d-%s\n", m.Path, m.Line-len(m.Before)+i, l)
		}
		fmt.Fprintf(&b, "%s:%d:%d:%s\n", m.Path, m.Line, m.Column, m.Text)
		for i, l := range m.After {
			fmt.Fprintf(&b, "%s-%d-%s\n", m.Path, m.Line+1+i, l)
		}
	}
	for _, f := range o.Files {
		fmt.Fprintf(&b, "%s:%d\n", f.Path, f.Matches)
	}
	if o.Truncated {
		fmt.Fprintf(&b, "[more results: continue with cursor %s]", o.NextCursor)
	}
	return b.String()
}
