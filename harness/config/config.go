package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"go.yaml.in/yaml/v3"
)

// Effect is what calling a tool can do. The harness orders them from
// read_only (weakest) to destructive (strictest).
type Effect string

const (
	ReadOnly    Effect = "read_only"
	Write       Effect = "write"
	Network     Effect = "network"
	Destructive Effect = "destructive"
)

// Rank orders effects by strictness: read_only 0 ... destructive 3.
func (e Effect) Rank() int {
	switch e {
	case ReadOnly:
		return 0
	case Write:
		return 1
	case Network:
		return 2
	}
	return 3
}

// Stricter returns the stricter of e and o.
func (e Effect) Stricter(o Effect) Effect {
	if o.Rank() > e.Rank() {
		return o
	}
	return e
}

func (e Effect) valid() bool {
	return e == ReadOnly || e == Write || e == Network || e == Destructive
}

// Defaults.
const (
	DefaultSummaryBytes     = 16 << 10
	DefaultDescriptionBytes = 1024
	DefaultMaxTurns         = 16
)

// Config is the whole configuration.
type Config struct {
	// StateDir holds runs (event logs, artifacts) and pinned definitions;
	// default DefaultStateDir().
	StateDir string `yaml:"state_dir"`
	// SummaryBytes bounds what a model receives of one result.
	SummaryBytes int `yaml:"summary_bytes"`
	// DescriptionBytes caps each description a model sees.
	DescriptionBytes int `yaml:"description_bytes"`
	// MaxTurns bounds the model replies of one run.
	MaxTurns int `yaml:"max_turns"`
	// RetryReadOnly is how many times a read-only call that ended unknown
	// is sent again automatically (default 1; 0 turns it off).
	RetryReadOnly *int `yaml:"retry_read_only"`
	// AllowHidden lets path arguments name dot-files (never .git).
	AllowHidden bool `yaml:"allow_hidden"`

	Local   *Local             `yaml:"local"`
	Servers map[string]*Server `yaml:"servers"`
	Model   Model              `yaml:"model"`
}

// Local configures the built-in source over a local directory.
type Local struct {
	Workspace string           `yaml:"workspace"`
	Tools     map[string]*Tool `yaml:"tools"`
}

// Approval modes of a server's tool definitions.
const (
	ApproveExplicit = "explicit"  // a person approves every new or changed definition
	ApproveFirstUse = "first_use" // new definitions are pinned on first sight; changes still need a person
)

// Server configures one MCP server: a process over stdio (Command) or a
// Streamable HTTP endpoint (URL), exactly one of them.
type Server struct {
	Command []string `yaml:"command"`
	Dir     string   `yaml:"dir"`
	Env     []string `yaml:"env"`
	Inherit []string `yaml:"inherit"`
	// URL is the server's Streamable HTTP endpoint (http or https).
	URL string `yaml:"url"`
	// Headers are sent with every HTTP request. ${NAME} in a value is
	// replaced by the harness's environment variable NAME when the server is
	// opened, so that a secret need not sit in the file:
	// Authorization: "Bearer ${REPO_MCP_TOKEN}". Values are never logged.
	Headers map[string]string `yaml:"headers"`
	// Workspace is the directory the harness checks path arguments against.
	Workspace   string           `yaml:"workspace"`
	Approve     string           `yaml:"approve"`
	CallTimeout time.Duration    `yaml:"call_timeout"`
	Tools       map[string]*Tool `yaml:"tools"`
}

// Tool is the policy of one allowlisted tool.
type Tool struct {
	// Effect; empty means destructive.
	Effect Effect `yaml:"effect"`
	// Paths names the arguments that hold paths in the workspace (string or
	// array of strings); the harness checks them before anything is sent.
	Paths []string `yaml:"paths"`
	// Preview names an argument shown to a person asking for approval (a
	// diff, a note's text).
	Preview string `yaml:"preview"`
	// PreviewWith names a read-only tool of the same server that shows what
	// a call will do, called by the harness before it asks for approval
	// (preview_diff for apply_patch), with the listed arguments of the call.
	PreviewWith *PreviewWith `yaml:"preview_with"`
}

// PreviewWith is a read-only tool that previews another's calls.
type PreviewWith struct {
	Tool string   `yaml:"tool"`
	Args []string `yaml:"args"`
}

// EffectOrDefault is the configured effect, destructive when unset.
func (t *Tool) EffectOrDefault() Effect {
	if t == nil || t.Effect == "" {
		return Destructive
	}
	return t.Effect
}

// Model selects the model behind the harness.
type Model struct {
	Kind      string         `yaml:"kind"` // scripted (default), anthropic, openai
	Name      string         `yaml:"name"`
	BaseURL   string         `yaml:"base_url"`
	APIKeyEnv string         `yaml:"api_key_env"`
	MaxTokens int            `yaml:"max_tokens"`
	Args      map[string]any `yaml:"args"` // scripted: arguments added to every call
	// Steps replace the scripted model's demo plan.
	Steps []Step `yaml:"steps"`
}

// Step is one step of a scripted plan: a tool call or the final answer.
type Step struct {
	Tool   string         `yaml:"tool"`
	Args   map[string]any `yaml:"args"`
	Answer string         `yaml:"answer"` // summary or report
}

// Load reads and checks the configuration file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(data, filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// Parse decodes and checks a configuration; relative paths are resolved
// against base.
func Parse(data []byte, base string) (*Config, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Config
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty configuration")
		}
		return nil, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document")
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	c.resolve(base)
	return &c, nil
}

var serverName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)

// headerName is an HTTP field name (RFC 9110's token).
var headerName = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")

func (c *Config) check() error {
	var errs []error
	if c.SummaryBytes < 0 || c.DescriptionBytes < 0 || c.MaxTurns < 0 {
		errs = append(errs, errors.New("summary_bytes, description_bytes and max_turns must not be negative"))
	}
	if c.RetryReadOnly != nil && *c.RetryReadOnly < 0 {
		errs = append(errs, errors.New("retry_read_only must not be negative"))
	}
	if c.Local != nil {
		if c.Local.Workspace == "" {
			errs = append(errs, errors.New("local: workspace is required"))
		}
		errs = append(errs, checkTools("local", c.Local.Tools, map[string]bool{"list_files": true, "read_file": true, "write_note": true}))
	}
	for _, name := range sortedKeys(c.Servers) {
		s := c.Servers[name]
		where := "servers." + name
		switch {
		case !serverName.MatchString(name):
			errs = append(errs, fmt.Errorf("%s: server names are 1-32 characters from [a-z0-9_-]", where))
		case s == nil || len(s.Command) == 0 && s.URL == "":
			errs = append(errs, fmt.Errorf("%s: command is required (or url, for a server over HTTP)", where))
		case len(s.Command) > 0 && s.URL != "":
			errs = append(errs, fmt.Errorf("%s: give command or url, not both", where))
		case s.URL != "" && (s.Dir != "" || len(s.Env) > 0 || len(s.Inherit) > 0):
			errs = append(errs, fmt.Errorf("%s: dir, env and inherit are for a command, not a url", where))
		case s.URL == "" && len(s.Headers) > 0:
			errs = append(errs, fmt.Errorf("%s: headers are for a url, not a command", where))
		case s.URL != "" && !httpURL(s.URL):
			errs = append(errs, fmt.Errorf("%s: url %q: want an http or https URL", where, s.URL))
		case s.Approve != "" && s.Approve != ApproveExplicit && s.Approve != ApproveFirstUse:
			errs = append(errs, fmt.Errorf("%s: approve %q: want %s or %s", where, s.Approve, ApproveExplicit, ApproveFirstUse))
		case s.CallTimeout < 0:
			errs = append(errs, fmt.Errorf("%s: call_timeout must not be negative", where))
		default:
			for _, h := range sortedKeys(s.Headers) {
				if !headerName.MatchString(h) {
					errs = append(errs, fmt.Errorf("%s.headers: %q is not a header name", where, h))
				}
			}
			errs = append(errs, checkTools(where, s.Tools, nil))
		}
	}
	for i, st := range c.Model.Steps {
		if (st.Tool == "") == (st.Answer == "") || (st.Answer != "" && st.Answer != "summary" && st.Answer != "report") {
			errs = append(errs, fmt.Errorf("model.steps[%d]: want a tool (with args) or an answer (summary or report)", i))
		}
	}
	switch c.Model.Kind {
	case "", "scripted", "anthropic", "openai":
	default:
		errs = append(errs, fmt.Errorf("model: kind %q: want scripted, anthropic or openai", c.Model.Kind))
	}
	return errors.Join(errs...)
}

func checkTools(where string, tools map[string]*Tool, known map[string]bool) error {
	var errs []error
	for _, name := range sortedKeys(tools) {
		t := tools[name]
		if known != nil && !known[name] {
			errs = append(errs, fmt.Errorf("%s.tools.%s: the built-in source has no such tool", where, name))
		}
		if t != nil && t.Effect != "" && !t.Effect.valid() {
			errs = append(errs, fmt.Errorf("%s.tools.%s: effect %q: want read_only, write, network or destructive", where, name, t.Effect))
		}
		if t != nil && t.PreviewWith != nil {
			if pw := tools[t.PreviewWith.Tool]; pw == nil || pw.Effect != ReadOnly {
				errs = append(errs, fmt.Errorf("%s.tools.%s: preview_with names %q, which must be an allowlisted read_only tool of the same server", where, name, t.PreviewWith.Tool))
			}
		}
	}
	return errors.Join(errs...)
}

func (c *Config) resolve(base string) {
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	if c.StateDir == "" {
		c.StateDir = DefaultStateDir()
	}
	c.StateDir = abs(c.StateDir)
	if c.SummaryBytes == 0 {
		c.SummaryBytes = DefaultSummaryBytes
	}
	if c.DescriptionBytes == 0 {
		c.DescriptionBytes = DefaultDescriptionBytes
	}
	if c.MaxTurns == 0 {
		c.MaxTurns = DefaultMaxTurns
	}
	if c.RetryReadOnly == nil {
		one := 1
		c.RetryReadOnly = &one
	}
	if c.Local != nil {
		c.Local.Workspace = abs(c.Local.Workspace)
	}
	for _, s := range c.Servers {
		s.Workspace = abs(s.Workspace)
		s.Dir = abs(s.Dir)
		if s.Approve == "" {
			s.Approve = ApproveExplicit
		}
	}
	if c.Model.Kind == "" {
		c.Model.Kind = "scripted"
	}
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// envRef is a reference to an environment variable in a header value.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// HTTPHeader returns the server's headers with every ${NAME} replaced by
// lookup(NAME). A variable that is not set is an error, naming the header
// and the variable but never a value: a request without its credentials
// would only be refused.
func (s *Server) HTTPHeader(lookup func(string) (string, bool)) (http.Header, error) {
	h := make(http.Header, len(s.Headers))
	var errs []error
	for _, name := range sortedKeys(s.Headers) {
		value := envRef.ReplaceAllStringFunc(s.Headers[name], func(ref string) string {
			v, ok := lookup(envRef.FindStringSubmatch(ref)[1])
			if !ok {
				errs = append(errs, fmt.Errorf("header %s: environment variable %s is not set", name, ref))
			}
			return v
		})
		h.Set(name, value)
	}
	return h, errors.Join(errs...)
}

// DefaultStateDir is where runs are kept when the configuration names no
// state_dir: $XDG_STATE_HOME/repo-harness, or ~/.local/state/repo-harness.
func DefaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "repo-harness")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "repo-harness")
	}
	return ".repo-harness"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
