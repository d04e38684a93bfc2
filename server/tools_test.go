package server_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/repo-mcp/repo-mcp/server"
)

// Test tools shared by this package's tests.

type echoIn struct {
	Text  string   `json:"text" jsonschema:"description=The text to echo back.,maxLength=100"`
	Count int      `json:"count,omitempty" jsonschema:"minimum=1,maximum=5"`
	Tags  []string `json:"tags,omitempty" jsonschema:"maxItems=3"`
	Opts  *options `json:"opts,omitempty"`
}

type options struct {
	Upper bool   `json:"upper"`
	Sep   string `json:"sep,omitempty" jsonschema:"enum=-,enum=+"`
}

type echoOut struct {
	Text string `json:"text"`
}

func echo(_ context.Context, _ *server.Request, in echoIn) (echoOut, error) {
	n := max(in.Count, 1)
	sep := " "
	if in.Opts != nil && in.Opts.Sep != "" {
		sep = in.Opts.Sep
	}
	text := strings.TrimSuffix(strings.Repeat(in.Text+sep, n), sep)
	if in.Opts != nil && in.Opts.Upper {
		text = strings.ToUpper(text)
	}
	return echoOut{Text: text}, nil
}

type failIn struct {
	Class   string `json:"class" jsonschema_description:"An error class, or 'plain' for an unclassed error, or 'panic'."`
	Message string `json:"message,omitempty"`
}

type empty struct{}

func fail(_ context.Context, _ *server.Request, in failIn) (empty, error) {
	switch in.Class {
	case "plain":
		return empty{}, errors.New("open /secret/host/path: permission denied")
	case "panic":
		panic("boom at /secret/host/path")
	case "transient":
		return empty{}, &server.Error{Class: server.Transient, Message: in.Message, RetryAfter: 2 * time.Second}
	}
	return empty{}, server.Errorf(server.Class(in.Class), "%s", in.Message).WithHint("a hint")
}

type sizeIn struct {
	Bytes      int  `json:"bytes" jsonschema:"minimum=0"`
	Structured bool `json:"structured,omitempty"`
}

type blob struct {
	Data string `json:"data,omitempty"`
	Size int    `json:"size"`
	text string
}

func (b blob) Text() string { return b.text }

func size(_ context.Context, _ *server.Request, in sizeIn) (blob, error) {
	data := strings.Repeat("x", in.Bytes)
	if in.Structured {
		return blob{Data: data, Size: in.Bytes, text: "see structured content"}, nil
	}
	return blob{Size: in.Bytes, text: data}, nil
}

func sleep(ctx context.Context, _ *server.Request, _ empty) (empty, error) {
	<-ctx.Done()
	return empty{}, ctx.Err()
}

type whoOut struct {
	Caller    string `json:"caller"`
	Workspace string `json:"workspace"`
	Protocol  string `json:"protocol"`
}

type whoIn struct {
	WorkspaceID string `json:"workspace_id"`
}

// AuditAttrs names the workspace in the audit line, as a repository
// tool's input does.
func (in whoIn) AuditAttrs() []slog.Attr {
	return []slog.Attr{slog.String("workspace_id", in.WorkspaceID)}
}

func who(_ context.Context, req *server.Request, in whoIn) (whoOut, error) {
	return whoOut{Caller: req.Caller, Workspace: in.WorkspaceID, Protocol: req.ProtocolVersion}, nil
}

// newTestServer returns a server with the test tools registered.
func newTestServer(opts server.Options) *server.Server {
	s := server.New(server.Info{Name: "test", Version: "v0.0.0"}, opts)
	server.MustRegister(s, server.Tool{Name: "echo", Description: "Echoes text.", Effect: server.ReadOnly}, echo)
	server.MustRegister(s, server.Tool{Name: "fail", Description: "Fails as asked.", Effect: server.Write, Idempotent: true}, fail)
	server.MustRegister(s, server.Tool{Name: "size", Description: "Returns a result of the given size.", Effect: server.ReadOnly, MaxResultBytes: 1000}, size)
	server.MustRegister(s, server.Tool{Name: "sleep", Description: "Waits until cancelled.", Effect: server.Destructive, OpenWorld: true, Timeout: 50 * time.Millisecond}, sleep)
	server.MustRegister(s, server.Tool{Name: "wait", Description: "Waits until cancelled, however long.", Effect: server.ReadOnly, Timeout: time.Hour}, sleep)
	server.MustRegister(s, server.Tool{Name: "who", Description: "Says who is calling.", Effect: server.ReadOnly, Action: "read"}, who)
	server.MustRegister(s, server.Tool{Name: "confirm", Description: "Asks the person to confirm.", Effect: server.Destructive}, confirm)
	return s
}
