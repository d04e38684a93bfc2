package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool that must hear from the person behind the client (to confirm a
// change, say) asks with [Ask] and finds the answer on the next round of
// the same call with [Request.Answer]. The framework carries the question
// in whichever way the session supports: an input_required result that the
// client answers by calling again (2026-07-28), or an elicitation request
// to the client within the call (legacy sessions). Either way the handler
// runs again from the start, with the answers and the state it saved.

// Question is a form for the person: a message and the fields to fill in,
// as a flat JSON Schema object of strings, numbers, booleans and enums (nil
// for none: a plain accept or decline).
type Question struct {
	Message string
	Fields  map[string]any
}

// Answer is the person's reply to a [Question].
type Answer struct {
	// Action is "accept", "decline" or "cancel".
	Action string
	// Content holds the fields, when accepted.
	Content map[string]any
}

// Accepted reports whether the person accepted.
func (a Answer) Accepted() bool { return a.Action == "accept" }

// askError ends a round of a call with questions.
type askError struct {
	state     string
	questions map[string]Question
}

func (e *askError) Error() string { return "the tool asks the person behind the client" }

// Ask returns the error a handler returns to put questions, keyed by
// names of its choice, to the person behind the client. state is saved
// with them (integrity-protected and bound to this call's tool, caller
// and arguments); the handler finds it again with [Request.State]. Ask only
// when [Request.CanAsk] is true.
func Ask(state string, questions map[string]Question) error {
	return &askError{state: state, questions: questions}
}

// IsAsk reports whether err carries questions made by [Ask]: the call is
// not over, it waits for the person's answers.
func IsAsk(err error) bool {
	_, ok := errors.AsType[*askError](err)
	return ok
}

// CanAsk reports whether the client declared that it can put questions to
// the person (the elicitation capability).
func (r *Request) CanAsk() bool { return r.canAsk != nil && r.canAsk() }

// Answer returns the answer to the question asked under key in the
// previous round of this call.
func (r *Request) Answer(key string) (Answer, bool) {
	a, ok := r.answers[key]
	return a, ok
}

// State returns the state saved by the previous round's [Ask], verified;
// "" in a first round.
func (r *Request) State() string { return r.state }

// AnswerID identifies the questions this call's answers reply to: the same
// for every call that presents one requestState, different for each
// question asked; "" in a first round. A requestState stays valid until it
// expires ([QuestionLifetime]), so a client may present it again with
// another answer (decline, then accept). A tool whose answer has an effect
// takes each answer once: it claims AnswerID, before acting on the answer,
// where every replica serving the client sees the claim (a replica's memory
// would not do: the next call may reach another replica).
func (r *Request) AnswerID() string { return r.answerID }

// QuestionLifetime bounds how long an unanswered question stays valid: a
// requestState older than this is refused.
const QuestionLifetime = 10 * time.Minute

// askState is what the requestState of an input_required result holds.
type askState struct {
	Tool    string `json:"t"`
	Caller  string `json:"c"` // another caller cannot answer this one's question
	Digest  string `json:"d"` // of the call's canonical arguments
	Expires int64  `json:"e"` // Unix seconds
	State   string `json:"s"`
	ID      string `json:"i"` // random: what Request.AnswerID returns
}

// signState seals st with the server's key.
func (s *Server) signState(st askState) string {
	payload, _ := json.Marshal(st)
	mac := hmac.New(sha256.New, s.opts.StateKey)
	mac.Write(payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

var errBadState = errors.New("requestState is not one this server issued for this call, or it has expired")

// openState verifies a requestState for the call req.
func (s *Server) openState(token string, req *Request) (askState, error) {
	enc, sig, ok := strings.Cut(token, ".")
	payload, err1 := base64.RawURLEncoding.DecodeString(enc)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil {
		return askState{}, errBadState
	}
	mac := hmac.New(sha256.New, s.opts.StateKey)
	mac.Write(payload)
	var st askState
	if !hmac.Equal(got, mac.Sum(nil)) || json.Unmarshal(payload, &st) != nil || st.ID == "" ||
		st.Tool != req.Tool || st.Caller != req.Caller || st.Digest != argumentsDigest(req) || time.Now().Unix() > st.Expires {
		return askState{}, errBadState
	}
	return st, nil
}

// newStateKey returns a random key for sealing request state. Replicas that
// serve one client must share a key (Options.StateKey).
func newStateKey() []byte {
	key := make([]byte, 32)
	rand.Read(key)
	return key
}

// receiveRound fills in what a call's previous round left: the verified
// state and the answers.
func (s *Server) receiveRound(req *Request, params *mcp.CallToolParamsRaw) error {
	if params.RequestState == "" && len(params.InputResponses) == 0 {
		return nil
	}
	st, err := s.openState(params.RequestState, req)
	if err != nil {
		return err
	}
	req.state, req.answerID = st.State, st.ID
	req.answers = make(map[string]Answer, len(params.InputResponses))
	for key, resp := range params.InputResponses {
		if er, ok := resp.(*mcp.ElicitResult); ok {
			req.answers[key] = Answer{Action: er.Action, Content: er.Content}
		}
	}
	return nil
}

// inputRequired is the result that carries a handler's questions.
func (s *Server) inputRequired(req *Request, a *askError) *mcp.CallToolResult {
	requests := make(mcp.InputRequestMap, len(a.questions))
	for key, q := range a.questions {
		schema := map[string]any{"type": "object", "properties": map[string]any{}}
		if q.Fields != nil {
			schema = q.Fields
		}
		requests[key] = &mcp.ElicitParams{Mode: "form", Message: q.Message, RequestedSchema: schema}
	}
	state := s.signState(askState{Tool: req.Tool, Caller: req.Caller, Digest: argumentsDigest(req),
		Expires: time.Now().Add(QuestionLifetime).Unix(), State: a.state, ID: rand.Text()})
	return &mcp.CallToolResult{InputRequests: requests, RequestState: state, Meta: mcp.Meta{MetaRequestID: req.ID}}
}

// unasked turns the failure of a legacy session's question into the
// call's result. In a legacy session the engine puts a tool's questions
// to the client as elicitation/create requests within the call; when the
// client answers one with a JSON-RPC error (mcp-go answers -32601 when no
// handler is registered), the engine fails the whole tools/call with that
// error, which reads as if tools/call itself were unknown. The person was
// never asked: the call ends, as a tool result, precondition_failed, and
// the tool has done nothing (it asks before it acts). nil: err is
// something else.
func unasked(err error) *mcp.CallToolResult {
	rpc, ok := errors.AsType[*jsonrpc.Error](err)
	if !ok || !strings.Contains(err.Error(), "fulfilling input request") {
		return nil
	}
	res := errorResult(&Error{
		Class: PreconditionFailed,
		Message: fmt.Sprintf("the tool asked the client to put a question to the person (elicitation/create), and the client answered with an error (%d: %s); the person was not asked and nothing was done",
			rpc.Code, rpc.Message),
		Hint: "use a client that can ask the person, or one that declares no elicitation capability",
	})
	out := res.wire("")
	delete(out.Meta, MetaRequestID) // the call's id is not known here
	return out
}
