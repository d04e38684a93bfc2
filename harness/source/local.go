package source

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/repo-mcp/repo-mcp/client"
	"github.com/repo-mcp/repo-mcp/harness/pathcheck"
)

// Local is the built-in source "local": list_files, read_file and
// write_note over one directory. Every path is checked with pathcheck and
// opened through an os.Root, so neither ".." nor a symbolic link leaves the
// workspace; a note is never written through a symbolic link at all, and
// replaces the file it names rather than writing into it.
type Local struct {
	root  string
	opts  pathcheck.Options
	paths *pathcheck.Root
}

// Bounds of the local tools.
const (
	maxListed    = 10000
	maxReadBytes = 64 << 20
	maxNoteBytes = 1 << 20
)

// NewLocal returns the local source over the directory root.
func NewLocal(root string, opts pathcheck.Options) (*Local, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("local source: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("local source: %s is not a directory", root)
	}
	return &Local{root: root, opts: opts, paths: pathcheck.NewRoot(root, opts)}, nil
}

// ID returns "local".
func (l *Local) ID() string { return "local" }

// Root is the workspace directory.
func (l *Local) Root() string { return l.root }

// Close does nothing.
func (l *Local) Close() error { return nil }

var localTools = []Descriptor{
	{
		Name:        "list_files",
		Description: "Lists the files under a directory of the workspace, one path per line, recursively. Hidden files are not listed.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"Directory relative to the workspace root; default the root.","maxLength":4096}},"additionalProperties":false}`),
	},
	{
		Name:        "read_file",
		Description: "Reads a text file of the workspace.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"File path relative to the workspace root.","minLength":1,"maxLength":4096}},"required":["path"],"additionalProperties":false}`),
	},
	{
		Name:        "write_note",
		Description: "Writes a text note to a file of the workspace, replacing it if it exists.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"File path relative to the workspace root.","minLength":1,"maxLength":4096},"text":{"type":"string","description":"The note.","maxLength":1048576}},"required":["path","text"],"additionalProperties":false}`),
	},
}

// Discover lists the three local tools.
func (l *Local) Discover(context.Context) ([]Descriptor, error) {
	return append([]Descriptor(nil), localTools...), nil
}

type localArgs struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// Call runs a local tool. Refusals are results with IsError set whose text
// starts with the error class.
func (l *Local) Call(ctx context.Context, tool string, args json.RawMessage) (*Result, error) {
	var a localArgs
	if len(args) > 0 {
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			return textResult("invalid_input: "+err.Error(), true), nil
		}
	}
	var (
		text string
		err  error
	)
	switch tool {
	case "list_files":
		text, err = l.list(ctx, a.Path)
	case "read_file":
		text, err = l.read(a.Path)
	case "write_note":
		text, err = l.write(a.Path, a.Text)
	default:
		return nil, &CallError{Outcome: client.RPCError, Message: "local: no tool " + tool}
	}
	if err != nil {
		return textResult(classify(err), true), nil
	}
	return textResult(text, false), nil
}

func (l *Local) open(p string) (*os.Root, string, error) {
	rel, err := l.paths.Check(p)
	if err != nil {
		return nil, "", err
	}
	r, err := os.OpenRoot(l.root)
	if err != nil {
		return nil, "", err
	}
	return r, rel, nil
}

func (l *Local) list(ctx context.Context, dir string) (string, error) {
	if dir == "" {
		dir = "."
	}
	r, rel, err := l.open(dir)
	if err != nil {
		return "", err
	}
	defer r.Close()
	var (
		b     strings.Builder
		count int
	)
	err = fs.WalkDir(r.FS(), rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if p != rel && strings.HasPrefix(d.Name(), ".") && (!l.opts.AllowHidden || d.Name() == ".git") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if count == maxListed {
			fmt.Fprintf(&b, "[truncated: more than %d files; list a subdirectory]\n", maxListed)
			return fs.SkipAll
		}
		count++
		b.WriteString(path.Clean(p))
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		return "", err
	}
	return b.String(), nil
}

func (l *Local) read(p string) (string, error) {
	r, rel, err := l.open(p)
	if err != nil {
		return "", err
	}
	defer r.Close()
	f, err := r.Open(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReadBytes+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxReadBytes {
		return "", fmt.Errorf("invalid_input: %s is larger than %d bytes", p, maxReadBytes)
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return "", fmt.Errorf("invalid_input: %s is not a text file", p)
	}
	return string(data), nil
}

func (l *Local) write(p, text string) (string, error) {
	if len(text) > maxNoteBytes {
		return "", fmt.Errorf("invalid_input: a note is at most %d bytes", maxNoteBytes)
	}
	r, rel, err := l.open(p)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if err := refuseLinks(r, rel); err != nil {
		return "", err
	}
	dir := path.Dir(rel)
	if dir != "." {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
	}
	if err := replaceFile(r, dir, rel, text); err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %d bytes to %s", len(text), rel), nil
}

// errLink refuses a write whose path goes through a symbolic link. pathcheck
// resolved the links already; refusing them here as well means that a link
// swapped in after that check is never followed either.
var errLink = errors.New("permission_denied: a note is never written through a symbolic link")

// refuseLinks checks every existing component of rel, from the root down:
// none may be a symbolic link, the directories must be directories, and
// the file, when it exists, a regular file.
func refuseLinks(r *os.Root, rel string) error {
	parts := strings.Split(rel, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		st, err := r.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // nothing below it exists either
		}
		if err != nil {
			return err
		}
		last := i == len(parts)-1
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%w: %s", errLink, p)
		case !last && !st.IsDir():
			return fmt.Errorf("invalid_input: %s is not a directory", p)
		case last && !st.Mode().IsRegular():
			return fmt.Errorf("invalid_input: %s exists and is not a regular file", p)
		}
	}
	return nil
}

// replaceFile writes text to a new file in dir and renames it over rel. The
// rename replaces the name, never the file it named: a hard link to a file
// elsewhere (a hook) keeps its content, and an executable loses its mode.
// The new file is opened with O_EXCL, so nothing already at its name is
// written through.
func replaceFile(r *os.Root, dir, rel, text string) error {
	var b [8]byte
	rand.Read(b[:])
	tmp := path.Join(dir, ".note-"+hex.EncodeToString(b[:])+".tmp")
	f, err := r.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, rel)
	}
	if err != nil {
		r.Remove(tmp)
		return err
	}
	return nil
}

// classify renders err with the class a model can act on.
func classify(err error) string {
	var pe *pathcheck.Error
	switch {
	case errors.As(err, &pe):
		return "permission_denied: " + pe.Error()
	case errors.Is(err, fs.ErrNotExist):
		return "not_found: " + err.Error()
	case strings.HasPrefix(err.Error(), "invalid_input: "), strings.HasPrefix(err.Error(), "permission_denied: "):
		return err.Error()
	}
	return "internal: " + err.Error()
}

func textResult(text string, isError bool) *Result {
	raw, _ := json.Marshal(map[string]any{
		"content": []map[string]string{{"type": "text", "text": text}},
		"isError": isError,
	})
	return &Result{Content: []Content{{Type: "text", Text: text}}, IsError: isError, Raw: raw}
}
