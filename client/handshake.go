package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Protocol versions this client speaks.
const (
	ModernVersion = "2026-07-28" // stateless: server/discover and per-request _meta
	LegacyVersion = "2025-11-25" // offered in initialize
)

// legacyVersions are the initialize versions accepted from a server: the
// offer, or a counter-offer of an older version whose tools/list and
// tools/call this client handles the same way.
var legacyVersions = []string{LegacyVersion, "2025-06-18", "2025-03-26"}

const (
	methodDiscover   = "server/discover"
	methodInitialize = "initialize"
)

// Modern error codes (2026-07-28). Any of them in answer to server/discover
// means the server is modern, so falling back to initialize would be wrong.
const (
	codeHeaderMismatch     = -32020
	codeMissingCapability  = -32021
	codeUnsupportedVersion = -32022
)

// ErrNoCommonVersion means the server speaks no protocol version this client does.
var ErrNoCommonVersion = errors.New("client: no protocol version in common with the server")

// ServerInfo is what the handshake learned about the server.
type ServerInfo struct {
	Modern          bool            // 2026-07-28 (per-request _meta) rather than a legacy session
	ProtocolVersion string          // the version in use
	Implementation  Implementation  // the server's name and version, if it gave them
	Capabilities    json.RawMessage // the server's capabilities object, as sent
	Instructions    string
	Supported       []string // modern: the versions server/discover listed
}

func (c *Conn) handshake(ctx context.Context) error {
	if c.opts.Era != EraLegacy {
		modern, err := c.discover(ctx)
		if err != nil || modern {
			return err
		}
	}
	return c.initialize(ctx)
}

// discover probes with server/discover. It reports modern=true when the server
// is modern (err then says whether it can be used), and modern=false with a
// nil error when the client should fall back to initialize.
func (c *Conn) discover(ctx context.Context) (modern bool, err error) {
	meta := modernMeta(c.opts.ClientInfo)
	var r struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		Instructions      string          `json:"instructions"`
		Meta              struct {
			ServerInfo Implementation `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	decode := func(a answer) error { return json.Unmarshal(a.raw, &r) }
	err = c.roundTrip(ctx, c.opts.Timeouts.Discover, methodDiscover, metaParams{Meta: meta}, decode)
	if supported, ok := unsupportedVersion(err); ok && slices.Contains(supported, ModernVersion) {
		// The server refused the version it lists as supported: the
		// refusal was about this request (a version header lost on the
		// way, a server starting up), so retry once with the version it
		// names (2026-07-28 basic, Protocol Version Negotiation).
		c.log.Info("mcp server/discover refused a version the server lists; retrying once", "supported", supported)
		err = c.roundTrip(ctx, c.opts.Timeouts.Discover, methodDiscover, metaParams{Meta: meta}, decode)
	}
	var ce *CallError
	switch {
	case err == nil && slices.Contains(r.SupportedVersions, ModernVersion):
		c.meta = meta
		c.era.Store(&era{version: ModernVersion, modern: true})
		c.server = ServerInfo{
			Modern:          true,
			ProtocolVersion: ModernVersion,
			Implementation:  r.Meta.ServerInfo,
			Capabilities:    r.Capabilities,
			Instructions:    r.Instructions,
			Supported:       r.SupportedVersions,
		}
		return true, nil
	case err == nil:
		err = fmt.Errorf("%w: server/discover lists %q", ErrNoCommonVersion, r.SupportedVersions)
	case !errors.As(err, &ce):
		return true, err
	case errors.Is(err, ErrCredentials):
		// HTTP only: initialize would be refused the same way.
		return true, fmt.Errorf("client: %w", ce)
	case ce.Outcome == RPCError && isModernError(ce.RPC.Code):
		return true, fmt.Errorf("client: modern server refused server/discover: %w", ce)
	case ce.Outcome != RPCError && ce.Outcome != TimedOut && ce.Outcome != BadResult:
		return true, fmt.Errorf("client: %w", ce) // the connection is unusable
	}
	if c.opts.Era == EraModern {
		return true, fmt.Errorf("client: server is not modern (%w)", err)
	}
	c.log.Info("mcp server/discover failed; falling back to initialize", "err", err)
	return false, nil
}

// unsupportedVersion returns the versions a -32022 refusal lists.
func unsupportedVersion(err error) (supported []string, ok bool) {
	var ce *CallError
	if !errors.As(err, &ce) || ce.Outcome != RPCError || ce.RPC.Code != codeUnsupportedVersion {
		return nil, false
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	json.Unmarshal(ce.RPC.Data, &data) // no data: nothing listed
	return data.Supported, true
}

func isModernError(code int64) bool {
	return code == codeHeaderMismatch || code == codeMissingCapability || code == codeUnsupportedVersion
}

// modernMeta is the _meta every 2026-07-28 request carries.
func modernMeta(info Implementation) json.RawMessage {
	b, err := json.Marshal(map[string]any{
		"io.modelcontextprotocol/protocolVersion":    ModernVersion,
		"io.modelcontextprotocol/clientCapabilities": struct{}{},
		"io.modelcontextprotocol/clientInfo":         info,
	})
	if err != nil {
		panic(err) // static shape; cannot fail
	}
	return b
}

type metaParams struct {
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// initialize runs the legacy handshake: initialize, then notifications/initialized.
func (c *Conn) initialize(ctx context.Context) error {
	params := map[string]any{
		"protocolVersion": LegacyVersion,
		// roots: the client answers roots/list, with an empty list.
		"capabilities": map[string]any{"roots": struct{}{}},
		"clientInfo":   c.opts.ClientInfo,
	}
	var r struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      Implementation  `json:"serverInfo"`
		Instructions    string          `json:"instructions"`
	}
	decode := func(a answer) error { return json.Unmarshal(a.raw, &r) }
	if err := c.roundTrip(ctx, c.opts.Timeouts.Initialize, methodInitialize, params, decode); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if !slices.Contains(legacyVersions, r.ProtocolVersion) {
		return fmt.Errorf("%w: initialize answered %q", ErrNoCommonVersion, r.ProtocolVersion)
	}
	c.era.Store(&era{version: r.ProtocolVersion})
	c.server = ServerInfo{
		ProtocolVersion: r.ProtocolVersion,
		Implementation:  r.ServerInfo,
		Capabilities:    r.Capabilities,
		Instructions:    r.Instructions,
	}
	line, err := json.Marshal(request{JSONRPC: "2.0", Method: "notifications/initialized"})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeouts.Initialize)
	defer cancel()
	if _, err := c.t.send(ctx, c.outgoing(0, "notifications/initialized", nil, line)); err != nil {
		return fmt.Errorf("client: notifications/initialized: %w", err)
	}
	return nil
}
