package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/repo-mcp/repo-mcp/harness/source"
)

// Definition returns the canonical JSON of what a tool's definition hash
// covers (name, description, input and output schema) and its hash,
// "sha256:<hex>". Key order and whitespace do not change the hash.
func Definition(d source.Descriptor) (json.RawMessage, string) {
	def := map[string]any{"name": d.Name, "description": d.Description}
	if v := canonical(d.InputSchema); v != nil {
		def["inputSchema"] = v
	}
	if v := canonical(d.OutputSchema); v != nil {
		def["outputSchema"] = v
	}
	b, _ := json.Marshal(def) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return b, "sha256:" + hex.EncodeToString(sum[:])
}

func canonical(raw json.RawMessage) any {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw) // hashed as received
	}
	return v
}

// Pin is an approved definition.
type Pin struct {
	Hash       string          `json:"hash"`
	Definition json.RawMessage `json:"definition"`
	By         string          `json:"by"`
	At         time.Time       `json:"at"`
}

// Pins keeps the approved definitions of every source in a directory, one
// JSON file per source. Its methods are safe for concurrent use.
type Pins struct {
	dir string
	mu  sync.Mutex
}

// OpenPins returns the pins kept in dir.
func OpenPins(dir string) (*Pins, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pins: %w", err)
	}
	return &Pins{dir: dir}, nil
}

func (p *Pins) file(src string) string { return filepath.Join(p.dir, src+".json") }

// Get returns the pin of a source's tool.
func (p *Pins) Get(src, tool string) (Pin, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	all, err := p.load(src)
	if err != nil {
		return Pin{}, false, err
	}
	pin, ok := all[tool]
	return pin, ok, nil
}

// Set pins a definition.
func (p *Pins) Set(src, tool string, pin Pin) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	all, err := p.load(src)
	if err != nil {
		return err
	}
	all[tool] = pin
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	tmp := p.file(src) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return fmt.Errorf("pins: %w", err)
	}
	if err := os.Rename(tmp, p.file(src)); err != nil {
		return fmt.Errorf("pins: %w", err)
	}
	return nil
}

func (p *Pins) load(src string) (map[string]Pin, error) {
	all := map[string]Pin{}
	data, err := os.ReadFile(p.file(src))
	if os.IsNotExist(err) {
		return all, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pins: %w", err)
	}
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("pins %s: %w", p.file(src), err)
	}
	return all, nil
}

// Diff renders the line difference of two definitions, pretty-printed:
// lines only in old start with "-", lines only in new with "+".
func Diff(old, new json.RawMessage) string {
	a, b := prettyLines(old), prettyLines(new)
	// Longest common subsequence; definitions are small.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out strings.Builder
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out.WriteString("  " + a[i] + "\n")
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			out.WriteString("+ " + b[j] + "\n")
			j++
		default:
			out.WriteString("- " + a[i] + "\n")
			i++
		}
	}
	return out.String()
}

func prettyLines(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return strings.Split(string(raw), "\n")
	}
	return strings.Split(buf.String(), "\n")
}
