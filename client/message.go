package client

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
)

// Implementation names a client or server (MCP's Implementation object).
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// request is an outgoing JSON-RPC request or notification (ID nil).
type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      *int64 `json:"id,omitempty"`
	Method  string `json:"method"`
	Params  any    `json:"params,omitempty"`
}

// response is an outgoing answer to a server-to-client request. The id is the
// server's raw id, echoed with its JSON type (servers use 0 and strings).
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCErrorObject `json:"error,omitempty"`
}

// message is any incoming JSON-RPC message. Key order does not matter
// (TypeScript servers put result before jsonrpc and id). ID, Params and
// Result are slices of the frame.
type message struct {
	JSONRPC string
	ID      json.RawMessage
	Method  string
	Params  json.RawMessage
	Result  json.RawMessage
	Error   *RPCErrorObject

	// call is the result read as a tools/call result, in the same pass as
	// the frame: the id, which says what the result answers, may come after it.
	call *callResult
}

type messageKind int

const (
	kindNotJSON      messageKind = iota // the line is not JSON
	kindMalformed                       // JSON, but not a JSON-RPC message we can route
	kindResponse                        // has an id and a result or an error
	kindRequest                         // server-to-client request: method and id
	kindNotification                    // method, no id
)

// decodeMessage classifies one frame and reads it in a single pass. It
// classifies as json.Unmarshal into a struct of the message's fields would:
// invalid JSON is kindNotJSON; valid JSON that is not an object, or whose
// fields have the wrong JSON types, is kindMalformed.
func decodeMessage(line []byte) (message, messageKind) {
	var m message
	d := jsonscan.NewScanner(line)
	mismatch, ok := readMessage(&d, &m)
	if !ok || !d.End() {
		return message{}, kindNotJSON
	}
	if mismatch {
		return m, kindMalformed
	}
	hasID := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	switch {
	case m.Method != "" && hasID:
		return m, kindRequest
	case m.Method != "":
		return m, kindNotification
	case len(m.ID) > 0 && (m.Result != nil || m.Error != nil):
		return m, kindResponse
	}
	return m, kindMalformed
}

// message reads a JSON-RPC message into m. mismatch reports a value of the
// wrong JSON type for its field; ok is false on a syntax error.
func readMessage(d *jsonscan.Scanner, m *message) (mismatch, ok bool) {
	if d.Peek() != '{' {
		// Valid JSON of another type is not a message (null decodes to nothing).
		return true, d.Skip()
	}
	ok = d.Object(func(key []byte) bool {
		var ok bool
		switch {
		case jsonscan.KeyIs(key, "jsonrpc"):
			return d.StringField(&m.JSONRPC, &mismatch)
		case jsonscan.KeyIs(key, "id"):
			m.ID, ok = d.Raw()
		case jsonscan.KeyIs(key, "method"):
			return d.StringField(&m.Method, &mismatch)
		case jsonscan.KeyIs(key, "params"):
			m.Params, ok = d.Raw()
		case jsonscan.KeyIs(key, "result"):
			m.call, m.Result, ok = readResult(d)
		case jsonscan.KeyIs(key, "error"):
			return readErrorField(d, &m.Error, &mismatch)
		default:
			return d.Skip()
		}
		return ok
	})
	return mismatch, ok
}

// errorField reads a JSON-RPC error object into *e as encoding/json would
// decode a *RPCErrorObject field: null sets it to nil, and an object is
// merged into the one a duplicate key already set. Error objects are small
// and rare, so encoding/json decodes it, from bytes the decoder checked.
func readErrorField(d *jsonscan.Scanner, e **RPCErrorObject, mismatch *bool) bool {
	raw, ok := d.Raw()
	switch {
	case !ok:
		return false
	case bytes.Equal(raw, []byte("null")):
		*e = nil
		return true
	}
	if *e == nil {
		*e = new(RPCErrorObject)
	}
	if json.Unmarshal(raw, *e) != nil {
		*mismatch = true
	}
	return true
}

// parseID reads a response id that must be a JSON integer, as this client's
// ids are. A string "1" or 1.0 is another JSON type and does not match.
func parseID(raw json.RawMessage) (int64, bool) {
	id, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return id, err == nil
}

// trailingID matches an id that closes a frame, as in {"result":...,"jsonrpc":"2.0","id":7}.
var trailingID = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+)\s*}\s*$`)

// oversizedID finds which request an oversized frame answers without having
// the whole frame: the top-level "id" among the first keys of the head, or a
// top-level "id" that closes the frame, in the tail. A frame whose head shows
// a "method" is a request or notification from the server, not an answer.
func oversizedID(head, tail []byte) (int64, bool) {
	id, found, isRequest := leadingID(head)
	switch {
	case isRequest:
		return 0, false
	case found:
		return parseID(id)
	}
	if m := trailingID.FindSubmatch(bytes.TrimRight(tail, "\r")); m != nil {
		return parseID(m[1])
	}
	return 0, false
}

// responseID reads the id of a frame whose leading members show a
// response: "jsonrpc" and "id", then "result" or "error", whose value is
// not read. Any other member before those (a "method") and it is not
// known, and false.
func responseID(line []byte) (int64, bool) {
	d := jsonscan.NewScanner(line)
	var id json.RawMessage
	response := false
	if d.Peek() != '{' {
		return 0, false
	}
	d.Object(func(key []byte) bool {
		switch {
		case jsonscan.KeyIs(key, "jsonrpc"):
			return d.Skip()
		case jsonscan.KeyIs(key, "id"):
			var ok bool
			id, ok = d.Raw()
			return ok
		case jsonscan.KeyIs(key, "result"), jsonscan.KeyIs(key, "error"):
			response = id != nil
		}
		return false // stop: the rest is the caller's to read
	})
	if !response {
		return 0, false
	}
	return parseID(id)
}

// leadingID walks the top-level keys of a truncated JSON object, as far as
// the head goes, looking for "id" and "method".
func leadingID(head []byte) (id json.RawMessage, found, isRequest bool) {
	for key, value := range jsonscan.Members(head) {
		switch key {
		case "method":
			return nil, false, true
		case "id":
			id, found = value, true
		}
	}
	return id, found, false
}
