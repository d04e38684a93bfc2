package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// OpenAI is a model behind an OpenAI-compatible chat-completions API, which
// local model servers (llama.cpp, vLLM, Ollama) also speak.
type OpenAI struct {
	cfg HTTPConfig
}

// NewOpenAI returns the adapter; it posts to BaseURL + "/chat/completions"
// (BaseURL usually ends in "/v1"). An empty APIKey sends no Authorization.
func NewOpenAI(cfg HTTPConfig) *OpenAI { return &OpenAI{cfg: cfg} }

// Name returns "openai:<model>".
func (o *OpenAI) Name() string { return "openai:" + o.cfg.Model }

type openaiFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Arguments   *string         `json:"arguments,omitempty"`
}

type openaiToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function openaiFunction `json:"function"`
}

type openaiMessage struct {
	Role       string           `json:"role"`
	Content    *string          `json:"content"`
	ToolCalls  []openaiToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openaiTool struct {
	Type     string         `json:"type"`
	Function openaiFunction `json:"function"`
}

type openaiRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens,omitempty"`
	Messages  []openaiMessage `json:"messages"`
	Tools     []openaiTool    `json:"tools,omitempty"`
}

type openaiResponse struct {
	Choices []struct {
		Message      openaiMessage `json:"message"`
		FinishReason string        `json:"finish_reason"`
	} `json:"choices"`
}

// Next posts the conversation and returns the model's reply.
func (o *OpenAI) Next(ctx context.Context, req Request) (Reply, error) {
	if err := CheckPairs(req.Messages); err != nil {
		return Reply{}, err
	}
	body := openaiRequest{Model: o.cfg.Model, MaxTokens: o.cfg.maxTokens()}
	if req.System != "" {
		body.Messages = append(body.Messages, openaiMessage{Role: "system", Content: &req.System})
	}
	for _, m := range req.Messages {
		body.Messages = append(body.Messages, toOpenAI(m)...)
	}
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, openaiTool{Type: "function", Function: openaiFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
	}
	header := http.Header{}
	if o.cfg.APIKey != "" {
		header.Set("Authorization", "Bearer "+o.cfg.APIKey)
	}
	var resp openaiResponse
	url := strings.TrimSuffix(o.cfg.BaseURL, "/") + "/chat/completions"
	if err := postJSON(ctx, o.cfg.client(), url, header, body, &resp); err != nil {
		return Reply{}, err
	}
	if len(resp.Choices) == 0 {
		return Reply{}, errors.New("model API: no choices in the answer")
	}
	msg := resp.Choices[0].Message
	reply := Reply{Stop: resp.Choices[0].FinishReason}
	if msg.Content != nil {
		reply.Text = *msg.Content
	}
	for _, c := range msg.ToolCalls {
		// A missing id is the harness's to name (it names and logs every
		// missing or repeated one); a missing name is not.
		if c.Function.Name == "" {
			return Reply{}, errors.New("model API: tool call without a name")
		}
		args := json.RawMessage("{}")
		if c.Function.Arguments != nil && strings.TrimSpace(*c.Function.Arguments) != "" {
			args = json.RawMessage(*c.Function.Arguments)
			if !json.Valid(args) {
				// Kept as a JSON string: validation refuses it, and the model
				// hears why.
				args, _ = json.Marshal(*c.Function.Arguments)
			}
		}
		reply.Calls = append(reply.Calls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
	}
	return reply, nil
}

func toOpenAI(m Message) []openaiMessage {
	text := func(s string) *string { return &s }
	switch m.Role {
	case Assistant:
		out := openaiMessage{Role: "assistant"}
		if m.Text != "" {
			out.Content = text(m.Text)
		}
		for _, c := range m.Calls {
			out.ToolCalls = append(out.ToolCalls, openaiToolCall{ID: c.ID, Type: "function", Function: openaiFunction{Name: c.Name, Arguments: text(string(c.Arguments))}})
		}
		return []openaiMessage{out}
	case Tool:
		var out []openaiMessage
		for _, r := range m.Results {
			content := r.Content
			if r.IsError && !strings.HasPrefix(content, "error") {
				content = "error: " + content
			}
			out = append(out, openaiMessage{Role: "tool", ToolCallID: r.CallID, Content: text(content)})
		}
		return out
	}
	return []openaiMessage{{Role: "user", Content: text(m.Text)}}
}
