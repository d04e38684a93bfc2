package model

import (
	"context"
	"encoding/json"
	"fmt"
)

// Model produces the next reply of a conversation.
type Model interface {
	// Name identifies the model in events ("scripted:demo", "anthropic:<model>").
	Name() string
	Next(ctx context.Context, req Request) (Reply, error)
}

// Request is what a model is given.
type Request struct {
	System   string
	Messages []Message
	Tools    []ToolSpec
}

// Roles of messages.
const (
	User      = "user"
	Assistant = "assistant"
	Tool      = "tool" // tool results
)

// Message is one turn of the conversation. A user message has Text; an
// assistant message has Text and/or Calls; a tool message has Results, one
// for each call of the assistant message before it.
type Message struct {
	Role    string       `json:"role"`
	Text    string       `json:"text,omitempty"`
	Calls   []ToolCall   `json:"calls,omitempty"`
	Results []ToolResult `json:"results,omitempty"`
}

// ToolCall is a call the model asks for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	CallID  string `json:"call_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// ToolSpec is a tool as the model sees it.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Reply is a model's answer. No Calls means the model is done and Text is
// its final answer.
type Reply struct {
	Text  string
	Calls []ToolCall
	Stop  string // the provider's stop reason, when it gave one
}

// CheckPairs reports an error unless every tool call of every assistant
// message has exactly one result in the message right after it, and every
// result answers a call.
func CheckPairs(msgs []Message) error {
	for i, m := range msgs {
		if m.Role != Assistant || len(m.Calls) == 0 {
			continue
		}
		if i+1 >= len(msgs) {
			return nil // the calls are being made
		}
		next := msgs[i+1]
		if next.Role != Tool {
			return fmt.Errorf("message %d: %d tool calls and no tool results after them", i, len(m.Calls))
		}
		want := make(map[string]int, len(m.Calls))
		for _, c := range m.Calls {
			want[c.ID]++
		}
		for _, r := range next.Results {
			if want[r.CallID] != 1 {
				return fmt.Errorf("message %d: result for %q answers no call or a call already answered", i+1, r.CallID)
			}
			want[r.CallID]++
		}
		for id, n := range want {
			if n != 2 {
				return fmt.Errorf("message %d: tool call %q has no result", i, id)
			}
		}
	}
	return nil
}
