package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/repo-mcp/repo-mcp/internal/jsonscan"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	fastjson "github.com/segmentio/encoding/json"
)

// One stdio stream is one of two things: a legacy session, opened by
// initialize, or a run of 2026-07-28 requests, each carrying its version
// in _meta. The engine (go-sdk) mixes them: a modern request marks the
// stream initialized, so a later request with neither _meta nor a
// handshake is served and a later initialize is refused as a duplicate,
// and a legacy session serves modern requests. Its refusals are -32603
// internal errors, logged at ERROR. eraGuard settles the era of each
// request before the engine sees it and answers the rest with the codes
// the specification names. docs/protocol.md records the choices.

// ModernVersion is the protocol version of requests that carry their
// version in _meta; the only one a request of that kind can use here.
const ModernVersion = "2026-07-28"

// legacyVersions are those initialize negotiates, newest first.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	methodInitialize    = "initialize"
	methodDiscover      = "server/discover"
	methodPing          = "ping"

	// codeUnsupportedVersion is 2026-07-28's UnsupportedProtocolVersionError.
	codeUnsupportedVersion = -32022
)

// eraGuard tracks the era of one stdio stream. Its zero value is a stream
// on which nothing has been served yet.
type eraGuard struct {
	mu           sync.Mutex
	initializing jsonrpc.ID // the initialize in flight, if any
	legacy       string     // the version initialize negotiated; "" before
	modern       bool       // a 2026-07-28 request was admitted
}

// admit decides whether the engine may see req, a request with an id. A
// refusal is the error to answer with.
func (g *eraGuard) admit(req *jsonrpc.Request) *badFrame {
	version, modern := requestVersion(req.Params)
	g.mu.Lock()
	defer g.mu.Unlock()
	id := rawID(req.ID)
	switch {
	case modern:
		return g.admitModern(id, version)
	case req.Method == methodInitialize:
		return g.admitInitialize(req)
	case req.Method == methodPing:
		return nil // legacy ping: allowed at any time, even before initialize
	case req.Method == methodDiscover:
		return &badFrame{id: id, code: jsonrpc.CodeInvalidParams, message: fmt.Sprintf(
			"invalid params: server/discover needs params._meta with %q (%s) and %q",
			metaProtocolVersion, ModernVersion, "io.modelcontextprotocol/clientCapabilities")}
	case g.legacy != "" || g.initializing.IsValid():
		return nil
	case g.modern:
		return &badFrame{id: id, code: jsonrpc.CodeInvalidParams, message: fmt.Sprintf(
			"invalid params: %s without _meta: this stream serves %s requests, and each must carry %q in params._meta",
			req.Method, ModernVersion, metaProtocolVersion)}
	}
	return &badFrame{id: id, code: jsonrpc.CodeInvalidParams, message: fmt.Sprintf(
		"invalid params: %s before initialize and without _meta: open a legacy session with initialize (%s), or send %q: %q in params._meta",
		req.Method, strings.Join(legacyVersions, ", "), metaProtocolVersion, ModernVersion)}
}

func (g *eraGuard) admitModern(id, raw json.RawMessage) *badFrame {
	var version string
	switch {
	case g.legacy != "" || g.initializing.IsValid():
		return &badFrame{id: id, code: jsonrpc.CodeInvalidRequest, message: fmt.Sprintf(
			"invalid request: this stream is a legacy session (initialize); a request with %q in _meta needs a stream of its own",
			metaProtocolVersion)}
	case json.Unmarshal(raw, &version) != nil:
		return &badFrame{id: id, code: jsonrpc.CodeInvalidParams, message: fmt.Sprintf(
			"invalid params: _meta %q must be a string such as %q", metaProtocolVersion, ModernVersion)}
	case version != ModernVersion:
		return unsupportedVersion(id, version)
	}
	g.modern = true
	return nil
}

func (g *eraGuard) admitInitialize(req *jsonrpc.Request) *badFrame {
	id := rawID(req.ID)
	var p struct {
		ProtocolVersion json.RawMessage `json:"protocolVersion"`
	}
	json.Unmarshal(req.Params, &p) // not an object: the engine refuses it
	var version string
	switch {
	case g.legacy != "" || g.initializing.IsValid():
		return &badFrame{id: id, code: jsonrpc.CodeInvalidRequest, message: "invalid request: the session is already initialized; initialize comes once per stream"}
	case g.modern:
		return &badFrame{id: id, code: jsonrpc.CodeInvalidRequest, message: fmt.Sprintf(
			"invalid request: this stream already serves %s requests (per-request _meta); a legacy session needs a stream of its own", ModernVersion)}
	case p.ProtocolVersion == nil || json.Unmarshal(p.ProtocolVersion, &version) != nil:
		return &badFrame{id: id, code: jsonrpc.CodeInvalidParams, message: fmt.Sprintf(
			"invalid params: initialize needs protocolVersion, a string such as %q", legacyVersions[0])}
	}
	g.initializing = req.ID
	return nil
}

// answered notes the response to a request the guard admitted: the answer
// to initialize opens the legacy session, or, refused, leaves the stream
// as it was.
func (g *eraGuard) answered(resp *jsonrpc.Response) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.initializing.IsValid() || resp.ID != g.initializing {
		return
	}
	g.initializing = jsonrpc.ID{}
	if resp.Error != nil {
		return
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &r) == nil && r.ProtocolVersion != "" {
		g.legacy = r.ProtocolVersion
	}
}

// requestVersion reads params._meta's protocol version: modern reports
// whether the key is there (a 2026-07-28-style request), version is its
// raw value. params has been checked to be valid JSON.
func requestVersion(params json.RawMessage) (version json.RawMessage, modern bool) {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || params[0] != '{' {
		return nil, false
	}
	var meta []byte
	for key, value := range jsonscan.Members(params) {
		if key == "_meta" {
			meta = value
		}
	}
	if len(meta) == 0 || meta[0] != '{' {
		return nil, false
	}
	for key, value := range jsonscan.Members(meta) {
		if key == metaProtocolVersion {
			return value, true
		}
	}
	return nil, false
}

// unsupportedVersion is the -32022 answer to a request whose _meta names a
// version other than 2026-07-28. It lists only that version: the legacy
// versions cannot be used with per-request _meta, and the specification
// asks the client to retry with a version from the list.
func unsupportedVersion(id json.RawMessage, requested string) *badFrame {
	data, _ := json.Marshal(struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}{[]string{ModernVersion}, requested})
	return &badFrame{id: id, code: codeUnsupportedVersion, message: "unsupported protocol version", data: data}
}

// modernVersions rewrites a server/discover result so that
// supportedVersions lists what a request with per-request _meta can use:
// 2026-07-28 alone. The engine lists the legacy versions too, which only
// initialize can open. The other members keep their order; a result
// that is not an object is left as it is.
func modernVersions(result json.RawMessage) json.RawMessage {
	return replaceMembers(result, func(key string, value []byte) []byte {
		if key == "supportedVersions" {
			return []byte(`["` + ModernVersion + `"]`)
		}
		return value
	})
}

// advertiseModern narrows the versions a JSON-RPC response advertises
// (a server/discover result's supportedVersions, a -32022 error's
// supported list) to 2026-07-28, as on stdio: a response that is neither
// is returned as it is.
func advertiseModern(msg []byte) []byte {
	out := replaceMembers(msg, func(key string, value []byte) []byte {
		switch key {
		case "result":
			return modernVersions(value)
		case "error":
			return modernSupported(value)
		}
		return value
	})
	if bytes.HasSuffix(msg, []byte("\n")) && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}

// replaceMembers returns the JSON object obj with each member's value
// replaced by what replace returns for it; the members keep their order.
// obj is returned as it is when it is not a valid object.
func replaceMembers(obj []byte, replace func(key string, value []byte) []byte) []byte {
	trimmed := bytes.TrimSpace(obj)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return obj
	}
	out := make([]byte, 0, len(trimmed))
	out = append(out, '{')
	for key, value := range jsonscan.Members(trimmed) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = fastjson.AppendEscape(out, key, 0)
		out = append(out, ':')
		out = append(out, replace(key, value)...)
	}
	return append(out, '}')
}

// modernSupported narrows a -32022 error's data.supported to 2026-07-28.
func modernSupported(errObj json.RawMessage) json.RawMessage {
	var e jsonrpc.Error
	if json.Unmarshal(errObj, &e) != nil || e.Code != codeUnsupportedVersion {
		return errObj
	}
	var data map[string]json.RawMessage
	if json.Unmarshal(e.Data, &data) != nil || data["supported"] == nil {
		return errObj
	}
	data["supported"] = json.RawMessage(`["` + ModernVersion + `"]`)
	e.Data, _ = json.Marshal(data)
	out, err := json.Marshal(e)
	if err != nil {
		return errObj
	}
	return out
}
