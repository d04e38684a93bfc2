package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/repo-mcp/repo-mcp/server"
	"github.com/repo-mcp/repo-mcp/tools/patch/verify"
	"github.com/repo-mcp/repo-mcp/tools/toolkit"
)

// allTools returns a server with every tool registered, for listing and
// schema generation.
func allTools() (*server.Server, error) {
	s := newServer(server.Options{})
	c := toolConfig{indexCache: "off", verifyChecks: strings.Join(verify.DefaultChecks, ",")}
	if err := registerTools(s, nil, &c, server.DefaultCaller, slog.New(slog.DiscardHandler)); err != nil {
		return nil, err
	}
	return s, nil
}

func listTools(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tools", stdout, stderr)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tools: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	s, err := allTools()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tEFFECT\tDESCRIPTION")
	for _, t := range s.Tools() {
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Effect, desc)
	}
	return tw.Flush()
}

// schemas writes schemas/<tool>.input.json and .output.json for every tool,
// and with --go the Go source serve registers them from, or with --check
// reports (and fails on) files that differ.
func schemas(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("schemas", stdout, stderr)
	dir := fs.String("dir", "schemas", "`directory` of the schema files")
	goFile := fs.String("go", "", "also write the Go `file` serve takes the schemas from (cmd/repo-mcp/schemas_gen.go)")
	check := fs.Bool("check", false, "fail if the files differ from the tools' schemas")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "schemas: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	s, err := allTools()
	if err != nil {
		return err
	}
	// A server compiles each input schema at the tool's first call; the
	// files are only written, or found current, for schemas that compile.
	if err := s.CheckSchemas(); err != nil {
		return err
	}
	want, err := schemaFiles(s)
	if err != nil {
		return err
	}
	var src []byte
	if *goFile != "" {
		if src, err = goSchemas(s); err != nil {
			return err
		}
	}
	if *check {
		if err := checkSchemaDir(*dir, want); err != nil {
			return err
		}
		var stale []string
		for _, name := range staleSchemas(*dir, want) {
			stale = append(stale, filepath.Join(*dir, name))
		}
		if src != nil && goSchemasStale(*goFile, src) {
			stale = append(stale, *goFile)
		}
		slices.Sort(stale)
		for _, path := range stale {
			fmt.Fprintf(stdout, "stale: %s\n", path)
		}
		if len(stale) > 0 {
			return fmt.Errorf("%s stale; run go generate ./... (or repo-mcp schemas)", toolkit.Count(len(stale), "schema file is", "schema files are"))
		}
		return nil
	}
	if src != nil && goSchemasStale(*goFile, src) {
		if err := os.WriteFile(*goFile, src, 0o644); err != nil {
			return err
		}
	}
	return writeSchemas(*dir, want)
}

// checkSchemaDir makes sure dir is a schemas/ folder to check: outside a
// repo-mcp checkout there is none, and every file would otherwise be
// called stale.
func checkSchemaDir(dir string, want map[string][]byte) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("schemas --check: there is no directory %s here; run it at the root of a repo-mcp checkout, or name the directory with --dir", dir)
	case err != nil:
		return fmt.Errorf("schemas --check: %w", err)
	case !fi.IsDir():
		return fmt.Errorf("schemas --check: %s is not a directory", dir)
	}
	for name := range want {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("schemas --check: %s holds none of the tools' schema files: not a repo-mcp checkout's schemas/ (repo-mcp schemas --dir %s writes them)", dir, dir)
}

// schemaFiles returns the schema files for the tools of s, by file name.
func schemaFiles(s *server.Server) (map[string][]byte, error) {
	files := make(map[string][]byte)
	for _, t := range s.Tools() {
		for suffix, schema := range map[string]map[string]any{".input.json": t.InputSchema, ".output.json": t.OutputSchema} {
			data, err := json.MarshalIndent(schema, "", "  ")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", t.Name, err)
			}
			files[t.Name+suffix] = append(data, '\n')
		}
	}
	return files, nil
}

// staleSchemas names the files in dir that differ from want, are missing,
// or are left over from tools that no longer exist.
func staleSchemas(dir string, want map[string][]byte) []string {
	var stale []string
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, data) {
			stale = append(stale, name)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && want[e.Name()] == nil {
			stale = append(stale, e.Name())
		}
	}
	return stale
}

func writeSchemas(dir string, want map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range staleSchemas(dir, want) {
		path := filepath.Join(dir, name)
		data, ok := want[name]
		if !ok {
			if err := os.Remove(path); err != nil {
				return err
			}
			continue
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
