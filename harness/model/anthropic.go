package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// Anthropic is a model behind the Anthropic Messages API.
type Anthropic struct {
	cfg HTTPConfig
}

// NewAnthropic returns the adapter; cfg.BaseURL is the API's origin (the
// adapter posts to BaseURL + "/v1/messages").
func NewAnthropic(cfg HTTPConfig) *Anthropic { return &Anthropic{cfg: cfg} }

// Name returns "anthropic:<model>".
func (a *Anthropic) Name() string { return "anthropic:" + a.cfg.Model }

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type anthropicMessage struct {
	Role    string           `json:"role"`
	Content []anthropicBlock `json:"content"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    string             `json:"system,omitempty"`
	Tools     []anthropicTool    `json:"tools,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
}

type anthropicResponse struct {
	Content    []anthropicBlock `json:"content"`
	StopReason string           `json:"stop_reason"`
}

// Next posts the conversation and returns the model's reply.
func (a *Anthropic) Next(ctx context.Context, req Request) (Reply, error) {
	if err := CheckPairs(req.Messages); err != nil {
		return Reply{}, err
	}
	body := anthropicRequest{Model: a.cfg.Model, MaxTokens: a.cfg.maxTokens(), System: req.System}
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, anthropicTool(t))
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, toAnthropic(m))
	}
	header := http.Header{}
	header.Set("x-api-key", a.cfg.APIKey)
	header.Set("anthropic-version", "2023-06-01")
	var resp anthropicResponse
	url := strings.TrimSuffix(a.cfg.BaseURL, "/") + "/v1/messages"
	if err := postJSON(ctx, a.cfg.client(), url, header, body, &resp); err != nil {
		return Reply{}, err
	}
	reply := Reply{Stop: resp.StopReason}
	var text []string
	for _, b := range resp.Content {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_use":
			// A missing id is the harness's to name (it names and logs
			// every missing or repeated one); a missing name is not.
			if b.Name == "" {
				return Reply{}, errors.New("model API: tool_use without a name")
			}
			args := b.Input
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			reply.Calls = append(reply.Calls, ToolCall{ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	reply.Text = strings.Join(text, "\n")
	return reply, nil
}

func toAnthropic(m Message) anthropicMessage {
	switch m.Role {
	case Assistant:
		out := anthropicMessage{Role: "assistant"}
		if m.Text != "" {
			out.Content = append(out.Content, anthropicBlock{Type: "text", Text: m.Text})
		}
		for _, c := range m.Calls {
			out.Content = append(out.Content, anthropicBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: c.Arguments})
		}
		return out
	case Tool:
		out := anthropicMessage{Role: "user"}
		for _, r := range m.Results {
			out.Content = append(out.Content, anthropicBlock{Type: "tool_result", ToolUseID: r.CallID, Content: r.Content, IsError: r.IsError})
		}
		return out
	}
	return anthropicMessage{Role: "user", Content: []anthropicBlock{{Type: "text", Text: m.Text}}}
}
