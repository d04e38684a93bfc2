package server

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The JSON-RPC id of a tools/call.
//
// go-sdk does not tell a tool handler the JSON-RPC id of its request, and
// the server needs it: the audit line names it (rpc_id), and a prepared
// result is held for the response with that id (prepared.go). The
// transport knows it, so it offers it through the context ([callIDs]). It
// used to travel in a private key the guard added to every tools/call's
// params._meta, which made go-sdk decode a _meta on every request,
// including those of clients that send none, and made the guard copy the
// params to add it.

// callIDKey is the context key under which a transport offers its [callIDs].
type callIDKey struct{}

// callIDs gives a tools/call handler the JSON-RPC id of its request, from
// what go-sdk hands the handler: the request's [mcp.RequestExtra].
type callIDs interface {
	callID(extra *mcp.RequestExtra) (jsonrpc.ID, bool)
}

func withCallIDs(ctx context.Context, ids callIDs) context.Context {
	return context.WithValue(ctx, callIDKey{}, ids)
}

// callIDFor returns the JSON-RPC id of the tools/call req, if the
// transport it came on says.
func callIDFor(ctx context.Context, req *mcp.CallToolRequest) (jsonrpc.ID, bool) {
	ids, ok := ctx.Value(callIDKey{}).(callIDs)
	if !ok {
		return jsonrpc.ID{}, false
	}
	return ids.callID(req.Extra)
}

// oneCall is the [callIDs] of an HTTP request, which carries one call:
// its context is that call's alone.
type oneCall jsonrpc.ID

func (c oneCall) callID(*mcp.RequestExtra) (jsonrpc.ID, bool) {
	return jsonrpc.ID(c), jsonrpc.ID(c).IsValid()
}

// callTable is the [callIDs] of a stream carrying many calls at once. Each
// tools/call the stream passes to the engine gets an [mcp.RequestExtra]
// of its own, which go-sdk hands to that call's handler as it is: the
// pointer names the call.
type callTable struct {
	mu      sync.Mutex
	byExtra map[*mcp.RequestExtra]jsonrpc.ID
	byID    map[jsonrpc.ID]*mcp.RequestExtra
}

func newCallTable() *callTable {
	return &callTable{
		byExtra: make(map[*mcp.RequestExtra]jsonrpc.ID),
		byID:    make(map[jsonrpc.ID]*mcp.RequestExtra),
	}
}

// add records the tools/call req, whose id is in flight, and gives it the
// Extra its handler will be handed.
func (t *callTable) add(req *jsonrpc.Request) {
	extra := &mcp.RequestExtra{}
	req.Extra = extra
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byExtra[extra] = req.ID
	t.byID[req.ID] = extra
}

func (t *callTable) callID(extra *mcp.RequestExtra) (jsonrpc.ID, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.byExtra[extra]
	return id, ok
}

// forget drops the call with this id, once answered (or never to be).
func (t *callTable) forget(id jsonrpc.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if extra, ok := t.byID[id]; ok {
		delete(t.byID, id)
		delete(t.byExtra, extra)
	}
}
