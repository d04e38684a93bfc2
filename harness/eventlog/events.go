package eventlog

import (
	"encoding/json"
)

// Type names what an event records.
type Type string

// The event types of a run. Every state change of a run or a call is one
// event; nothing else changes state.
const (
	RunCreated Type = "run_created" // RunData: the task, the model, the tool table
	RunState   Type = "run_state"   // StateData: the run's new state
	ModelReply Type = "model_reply" // ReplyData: what the model said and asked for
	CallState  Type = "call_state"  // CallData: a tool call's new state
	Approval   Type = "approval"    // ApprovalData: a person's decision on a call
	Reconcile  Type = "reconcile"   // ReconcileData: a decision on an unknown call
	ToolResult Type = "tool_result" // ResultData: what the model was given for a call
	Answer     Type = "answer"      // AnswerData: the model's final answer
	// HarnessCall records a call the harness made itself (the preview of
	// a call waiting for approval): it reached a server, so it is audited.
	HarnessCall Type = "harness_call" // HarnessCallData
)

// RunState values.
const (
	Running            = "running"
	WaitingForApproval = "waiting_for_approval"
	Interrupted        = "interrupted"
	Completed          = "completed"
	Failed             = "failed"
	Cancelled          = "cancelled"
)

// ToolCall states (besides WaitingForApproval, Failed and Cancelled above).
const (
	Proposed         = "proposed"
	PermissionDenied = "permission_denied"
	Denied           = "denied"
	Ready            = "ready"
	Executing        = "executing"
	Succeeded        = "succeeded"
	Unknown          = "unknown"
)

// Terminal reports whether a call in state s can change no more (unknown
// can, by reconciliation).
func Terminal(s string) bool {
	switch s {
	case PermissionDenied, Denied, Succeeded, Failed, Cancelled:
		return true
	}
	return false
}

// RunData is the payload of RunCreated.
type RunData struct {
	Task  string      `json:"task"`
	Model string      `json:"model"`
	Tools []ToolEntry `json:"tools"`
	// Unavailable names the configured sources the harness left out
	// because they failed discovery, and why: their tools are not offered.
	Unavailable []UnavailableSource `json:"unavailable,omitempty"`
	// Servers says where each MCP source's tools come from.
	Servers []ServerOrigin `json:"servers,omitempty"`
}

// ServerOrigin is where one MCP source's tools come from: what the harness
// started or dialled, and what the server said it is.
type ServerOrigin struct {
	Source   string   `json:"source"`            // "mcp.<name>"
	Command  []string `json:"command,omitempty"` // stdio: the program and its arguments
	URL      string   `json:"url,omitempty"`     // HTTP: scheme, host and path only
	Name     string   `json:"name,omitempty"`    // serverInfo, as the server gave it
	Version  string   `json:"version,omitempty"`
	Protocol string   `json:"protocol,omitempty"` // the protocol version in use
}

// UnavailableSource is a configured source left out of a run's table.
type UnavailableSource struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// ToolEntry is one tool of the table the model was given.
type ToolEntry struct {
	Alias      string `json:"alias"`  // the name the model sees
	Source     string `json:"source"` // e.g. "mcp.repo"
	Tool       string `json:"tool"`   // the name in the source
	Effect     string `json:"effect"`
	Definition string `json:"definition"`         // hash of the pinned definition
	Mismatch   string `json:"mismatch,omitempty"` // annotations that disagree with the configured effect
}

// StateData is the payload of RunState.
type StateData struct {
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// ReplyData is the payload of ModelReply.
type ReplyData struct {
	Text  string      `json:"text,omitempty"`
	Calls []ModelCall `json:"calls,omitempty"`
	// Renamed lists the calls whose id the harness replaced because the
	// model gave none or one that an earlier call of the reply had; Calls
	// holds the new ids, which the model's results then carry.
	Renamed []RenamedCall `json:"renamed,omitempty"`
}

// RenamedCall is a call of a reply whose id the harness replaced.
type RenamedCall struct {
	Index int    `json:"index"` // in Calls, from 0
	From  string `json:"from"`  // as the model gave it ("" when missing)
	To    string `json:"to"`
}

// ModelCall is a tool call as the model asked for it.
type ModelCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// CallData is the payload of CallState. The proposed event carries every
// identifying field; later events carry the new state and what it adds.
type CallData struct {
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`

	ModelCall  string          `json:"model_call,omitempty"` // the model's id for the call
	Alias      string          `json:"alias,omitempty"`
	Source     string          `json:"source,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Effect     string          `json:"effect,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Digest     string          `json:"digest,omitempty"`     // argument digest
	Summary    string          `json:"summary,omitempty"`    // short rendering of the arguments
	Definition string          `json:"definition,omitempty"` // tool definition hash
	Preview    string          `json:"preview,omitempty"`    // what a person should look at before approving

	Attempt   int    `json:"attempt,omitempty"`    // executing: 1 for the first send
	RequestID string `json:"request_id,omitempty"` // executing: the request_id the harness sent
	// ServerRequestID is the request_id the server's result names (its
	// _meta io.github.repo-mcp/request_id), when it names one: the key
	// of the server's own audit line.
	ServerRequestID string  `json:"server_request_id,omitempty"`
	Outcome         string  `json:"outcome,omitempty"`      // client outcome: answered, timed_out, ...
	ResultBytes     int64   `json:"result_bytes,omitempty"` // size of the raw result
	Artifact        string  `json:"artifact,omitempty"`     // reference of the stored raw result
	DurationMS      float64 `json:"duration_ms,omitempty"`
}

// ApprovalData is the payload of Approval.
type ApprovalData struct {
	Decision   string `json:"decision"` // "approve" or "deny"
	By         string `json:"by"`
	Digest     string `json:"digest"`
	Definition string `json:"definition"`
	Reason     string `json:"reason,omitempty"`
}

// Reconcile decisions.
const (
	Happened    = "happened"
	NotHappened = "not_happened"
	Retry       = "retry"
)

// ReconcileData is the payload of Reconcile.
type ReconcileData struct {
	Decision  string `json:"decision"`
	By        string `json:"by"`
	Note      string `json:"note,omitempty"`
	Automatic bool   `json:"automatic,omitempty"` // taken by the harness (read-only retry)
}

// ResultData is the payload of ToolResult: exactly what the model received.
type ResultData struct {
	ModelCall string `json:"model_call"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

// HarnessCallData is the payload of HarnessCall. The event's Call is the
// model's call the harness acted for.
type HarnessCallData struct {
	Purpose         string  `json:"purpose"` // "preview"
	Source          string  `json:"source"`
	Tool            string  `json:"tool"`
	Digest          string  `json:"digest"` // of the arguments sent
	Summary         string  `json:"summary,omitempty"`
	RequestID       string  `json:"request_id"`
	ServerRequestID string  `json:"server_request_id,omitempty"`
	State           string  `json:"state"`             // succeeded or failed, or unknown
	Outcome         string  `json:"outcome,omitempty"` // client outcome
	Reason          string  `json:"reason,omitempty"`
	DurationMS      float64 `json:"duration_ms"`
	ResultBytes     int64   `json:"result_bytes,omitempty"`
}

// AnswerData is the payload of Answer.
type AnswerData struct {
	Text string `json:"text"`
}

// Marshal encodes a payload for Event.Data. Payloads are plain structs, so
// encoding cannot fail.
func Marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic("eventlog: payload does not encode: " + err.Error())
	}
	return b
}
