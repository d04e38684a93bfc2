package server

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
)

// badFrame is the JSON-RPC error that answers a malformed frame.
type badFrame struct {
	id      json.RawMessage // nil: null
	code    int
	message string
	data    json.RawMessage // the error's data, if any
}

// envelope is a frame's top-level members as checkFrame reads them.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

// checkFrame decodes one frame into a message go-sdk can take, or says
// how to refuse it. It builds the message itself from one parse (go-sdk's
// decoder would parse the frame again, with a large buffer each time). The
// params go to the engine as the client sent them.
func checkFrame(line []byte) (jsonrpc.Message, *badFrame) {
	if len(line) > 0 && line[0] == '[' {
		return nil, &badFrame{nil, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not accepted here; send one message at a time", nil}
	}
	env, ok := scanEnvelope(line)
	if !ok {
		var bad *badFrame
		if env, bad = decodeEnvelope(line); bad != nil {
			return nil, bad
		}
	}
	id := validID(env.ID)
	switch {
	case env.JSONRPC != "2.0":
		return nil, &badFrame{id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`, nil}
	case env.ID != nil && id == nil:
		return nil, &badFrame{numberID(env.ID), jsonrpc.CodeInvalidRequest, "invalid request: id must be a string or an integer of at most 53 bits", nil}
	}
	rpcID, err := makeID(id)
	if err != nil {
		return nil, &badFrame{nil, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error(), nil}
	}
	if env.Method == nil {
		if !rpcID.IsValid() || (env.Result == nil) == (env.Error == nil) {
			return nil, &badFrame{id, jsonrpc.CodeInvalidRequest, "invalid request: neither a request (method) nor a response (id and result or error)", nil}
		}
		resp := &jsonrpc.Response{ID: rpcID, Result: env.Result}
		if env.Error != nil {
			resp.Error = env.Error
		}
		return resp, nil
	}
	method, ok := jsonString(env.Method)
	if !ok {
		return nil, &badFrame{id, jsonrpc.CodeInvalidRequest, "invalid request: method must be a string", nil}
	}
	return &jsonrpc.Request{ID: rpcID, Method: method, Params: env.Params}, nil
}

// decodeEnvelope decodes the envelope of any frame with encoding/json, or
// says how to refuse it.
func decodeEnvelope(line []byte) (envelope, *badFrame) {
	var env envelope
	if err := json.Unmarshal(line, &env); err != nil {
		if _, ok := errors.AsType[*json.SyntaxError](err); ok || len(line) == 0 {
			return env, &badFrame{nil, jsonrpc.CodeParseError, "parse error: the message is not JSON", nil}
		}
		return env, &badFrame{validID(env.ID), jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC message object", nil}
	}
	return env, nil
}

// scanEnvelope reads the envelope of the frames clients send, in one pass
// over line (encoding/json checks the whole frame, then decodes it, then
// checks each member it keeps as raw JSON again). It stores what
// json.Unmarshal would store, the raw members as slices of line. ok is
// false for any other frame: one that is not a JSON object, repeats a
// member, spells a member's name in another case, has an error member (a
// response to the server, rare) or a jsonrpc member that is not a string;
// checkFrame then decodes it with decodeEnvelope, which says what is wrong.
func scanEnvelope(line []byte) (env envelope, ok bool) {
	s := jsonscan.NewScanner(line)
	if s.Peek() != '{' {
		return envelope{}, false
	}
	var seen [5]bool
	raw := [5]*json.RawMessage{nil, &env.ID, &env.Method, &env.Params, &env.Result}
	ok = s.Object(func(key []byte) bool {
		i := envelopeMember(key)
		if i < 0 {
			// A name encoding/json would match to a member in
			// another case (it folds Unicode too) is left to it.
			return !foldsToMember(key) && s.Skip()
		}
		if seen[i] {
			return false
		}
		seen[i] = true
		if i == 0 {
			var mismatch bool
			return s.StringField(&env.JSONRPC, &mismatch) && !mismatch
		}
		v, ok := s.Raw()
		*raw[i] = v
		return ok
	}) && s.End()
	if !ok {
		return envelope{}, false
	}
	return env, true
}

// envelopeMember returns the index of the member key names exactly, in
// the order of scanEnvelope's raw (jsonrpc first), or -1.
func envelopeMember(key []byte) int {
	switch string(key) {
	case "jsonrpc":
		return 0
	case "id":
		return 1
	case "method":
		return 2
	case "params":
		return 3
	case "result":
		return 4
	}
	return -1
}

// foldsToMember reports whether key could select an envelope member in
// encoding/json's case-insensitive matching: an ASCII case variant of a
// member's name, any name with a byte outside ASCII, or "error".
func foldsToMember(key []byte) bool {
	for _, c := range key {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	for _, name := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
		if jsonscan.KeyIs(key, name) {
			return true
		}
	}
	return false
}

// jsonString decodes raw, valid JSON, into a string as json.Unmarshal
// would: a string, or null for "" (a string field is left as it was);
// false for any other value.
func jsonString(raw json.RawMessage) (string, bool) {
	s := jsonscan.NewScanner(raw)
	var v string
	var mismatch bool
	ok := s.StringField(&v, &mismatch) && s.End()
	return v, ok && !mismatch
}

// makeID converts a valid raw id (or nil) to go-sdk's form.
func makeID(raw json.RawMessage) (jsonrpc.ID, error) {
	if raw == nil {
		return jsonrpc.ID{}, nil
	}
	// The ids validID lets through, without a decoder: go-sdk holds an
	// integer as the float64 json.Unmarshal gives, exact up to 53 bits.
	if s, ok := jsonString(raw); ok && raw[0] == '"' {
		return jsonrpc.MakeID(s)
	}
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n >= -maxExactInt && n <= maxExactInt {
		return jsonrpc.MakeID(float64(n))
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, err
	}
	return jsonrpc.MakeID(v)
}

// rawID is the JSON form of a valid id.
func rawID(id jsonrpc.ID) json.RawMessage {
	data, err := json.Marshal(id.Raw())
	if err != nil {
		return nil
	}
	return data
}

// maxExactInt is the largest integer a float64 holds exactly.
const maxExactInt = 1<<53 - 1

// validID returns raw when it is a JSON string or integer, else nil.
func validID(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return raw
		}
		return nil
	}
	// go-sdk keeps numeric ids as float64 on the way in: beyond 53 bits
	// it would echo a different id than it was sent.
	if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil && n >= -maxExactInt && n <= maxExactInt {
		return raw
	}
	return nil
}

// numberID returns raw when it is a JSON number the engine cannot carry
// (past 53 bits, or written with a fraction or exponent, as 1.0): the
// refusal echoes it as sent, so the client can match it to its request.
// Anything else (null, an object) is not an id at all: nil.
func numberID(raw json.RawMessage) json.RawMessage {
	var n json.Number
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &n) != nil {
		return nil
	}
	return raw
}

// maxIDBytes bounds the string id leadingID reports, quotes included: an
// id longer than any client sends is not echoed in an error.
const maxIDBytes = 512

// leadingID finds the id of a truncated message among its top-level
// members that come before the params (the params are what made it too
// large, and an "id" inside them is not the message's).
func leadingID(prefix []byte) json.RawMessage {
	for key, value := range jsonscan.Members(prefix) {
		switch key {
		case "id":
			if len(value) > maxIDBytes {
				return nil
			}
			return validID(value)
		case "params":
			return nil
		}
	}
	return nil
}
