package history

import (
	"fmt"
	"time"

	"github.com/repo-mcp/repo-mcp/workspace"
)

// Person is who authored or committed a commit, and when.
type Person struct {
	Name string `json:"name"`
	// Email is absent when the operator hides emails.
	Email string `json:"email,omitempty"`
	// Time is RFC 3339, in the person's own time zone.
	Time string `json:"time"`
}

// Commit is one commit's metadata.
type Commit struct {
	SHA     string   `json:"sha"`
	Parents []string `json:"parents"`
	Author  Person   `json:"author"`
	// Committer is absent when it is the author, at the same time.
	Committer *Person `json:"committer,omitempty"`
	// Subject is the first line of the message.
	Subject string `json:"subject"`
	// Body is the rest of the message, at most body_bytes.
	Body string `json:"body,omitempty"`
	// BodyTruncated says the body was cut.
	BodyTruncated bool `json:"body_truncated,omitempty"`
	// Files are the files the commit changed against its first parent, with line counts, when asked (not for merges); limited to path when one is given.
	Files []File `json:"files,omitempty"`
	// FilesOmitted counts the files left out of a log entry beyond the first 300; ask diff with this commit for all of them.
	FilesOmitted int `json:"files_omitted,omitempty"`
}

// File is one changed file.
type File struct {
	// Path is the file's path after the change (before it, for a deletion).
	Path string `json:"path"`
	// OldPath is a renamed file's previous path.
	OldPath string `json:"old_path,omitempty"`
	// Status is added, modified, deleted, renamed or type_changed.
	Status string `json:"status"`
	// Similarity is a rename's similarity, in percent.
	Similarity int `json:"similarity,omitempty"`
	// OldMode and NewMode are git modes in octal, given when they differ.
	OldMode string `json:"old_mode,omitempty"`
	NewMode string `json:"new_mode,omitempty"`
	// Binary says either side is binary: no line counts or patch.
	Binary bool `json:"binary,omitempty"`
	// Added and Removed count lines; absent for binary files, submodules and files above 16 MiB.
	Added   *int `json:"added,omitempty"`
	Removed *int `json:"removed,omitempty"`
}

func person(s workspace.Signature) Person {
	return Person{Name: s.Name, Email: s.Email, Time: s.Time.Format(time.RFC3339)}
}

// commitOut converts a commit, its body bounded.
func commitOut(c workspace.CommitInfo, bodyBytes int) Commit {
	out := Commit{SHA: c.SHA, Parents: c.Parents, Author: person(c.Author), Subject: c.Subject()}
	if out.Parents == nil {
		out.Parents = []string{}
	}
	if c.Committer.Name != c.Author.Name || c.Committer.Email != c.Author.Email || !c.Committer.Time.Equal(c.Author.Time) {
		p := person(c.Committer)
		out.Committer = &p
	}
	out.Body, out.BodyTruncated = cut(c.Body(), bodyBytes)
	return out
}

// cut returns at most n bytes of s, on a character boundary.
func cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n], true
}

func fileOut(fc workspace.ChangedFile) File {
	f := File{Path: fc.Path, OldPath: fc.OldPath, Status: string(fc.Status), Similarity: fc.Similarity, Binary: fc.Binary}
	if fc.OldMode != fc.NewMode && fc.OldMode != 0 && fc.NewMode != 0 {
		f.OldMode, f.NewMode = fmt.Sprintf("%06o", fc.OldMode), fmt.Sprintf("%06o", fc.NewMode)
	}
	if fc.Added >= 0 {
		a, r := fc.Added, fc.Removed
		f.Added, f.Removed = &a, &r
	}
	return f
}

func filesOut(fcs []workspace.ChangedFile) []File {
	out := make([]File, 0, len(fcs))
	for _, fc := range fcs {
		out = append(out, fileOut(fc))
	}
	return out
}
