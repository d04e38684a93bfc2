package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
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
// (TypeScript servers put result before jsonrpc and id).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCErrorObject `json:"error"`
}

type messageKind int

const (
	kindNotJSON      messageKind = iota // the line is not JSON
	kindMalformed                       // JSON, but not a JSON-RPC message we can route
	kindResponse                        // has an id and a result or an error
	kindRequest                         // server-to-client request: method and id
	kindNotification                    // method, no id
)

// decodeMessage classifies one frame.
func decodeMessage(line []byte) (message, messageKind) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || !json.Valid(line) {
			return m, kindNotJSON
		}
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

// leadingID walks the top-level keys of a truncated JSON object, as far as
// the head goes, looking for "id" and "method".
func leadingID(head []byte) (id json.RawMessage, found, isRequest bool) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		if key == "method" {
			return nil, false, true
		}
		var value json.RawMessage
		if dec.Decode(&value) != nil {
			break // a value that runs past the head
		}
		if key == "id" {
			id, found = value, true
		}
	}
	return id, found, false
}
