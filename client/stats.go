package client

import "sync/atomic"

// Stats counts what a server sent, including what the client dropped. Every
// anomaly is also logged; the counts let a harness assert on them.
type Stats struct {
	Frames               int64 // frames read from stdout
	Bytes                int64 // bytes read from stdout
	NonJSON              int64 // lines that were not JSON, dropped
	Malformed            int64 // JSON that was not a routable JSON-RPC message, dropped
	WrongIDType          int64 // responses whose id was not an integer, dropped
	UnknownID            int64 // responses to no request the client is or was waiting for (duplicate, invented), dropped
	Late                 int64 // answers to requests the client had stopped waiting for (timed out, cancelled), dropped
	Oversized            int64 // frames over Limits.FrameBytes, discarded
	Notifications        int64 // notifications received
	UnknownNotifications int64 // notifications of a method this client does not know, ignored
	ToolListChanged      int64 // notifications/tools/list_changed received
	ServerRequests       int64 // server-to-client requests answered
	RejectedTools        int64 // tools left out of Tools for invalid x-mcp-header marks (HTTP)
	StderrBytes          int64 // bytes the server wrote to stderr
	StderrDropped        int64 // stderr bytes not kept (long lines cut, old lines evicted)
}

type counters struct {
	frames, bytes, nonJSON, malformed, wrongIDType, unknownID, late, oversized atomic.Int64
	notifications, unknownNotifications, toolListChanged, serverRequests       atomic.Int64
	rejectedTools                                                              atomic.Int64
}

// Stats returns a snapshot of the connection's counters.
func (c *Conn) Stats() Stats {
	var seen, dropped int64
	if r := c.t.stderrRing(); r != nil {
		seen, dropped = r.counts()
	}
	s := &c.stats
	return Stats{
		Frames:               s.frames.Load(),
		Bytes:                s.bytes.Load(),
		NonJSON:              s.nonJSON.Load(),
		Malformed:            s.malformed.Load(),
		WrongIDType:          s.wrongIDType.Load(),
		UnknownID:            s.unknownID.Load(),
		Late:                 s.late.Load(),
		Oversized:            s.oversized.Load(),
		Notifications:        s.notifications.Load(),
		UnknownNotifications: s.unknownNotifications.Load(),
		ToolListChanged:      s.toolListChanged.Load(),
		ServerRequests:       s.serverRequests.Load(),
		RejectedTools:        s.rejectedTools.Load(),
		StderrBytes:          seen,
		StderrDropped:        dropped,
	}
}
