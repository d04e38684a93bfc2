// Package mcphttp sends single 2026-07-28 tools/call requests over
// Streamable HTTP, as tests of HTTP servers need them: raw, so that a test
// sees the status, headers and body exactly as the server sent them.
package mcphttp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Meta is the _meta member of a 2026-07-28 request from a client that can
// be asked questions (elicitation).
const Meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// Call returns a tools/call request: id, the tool, its arguments as raw
// JSON, and extra members of params (raw, "" for none).
func Call(id int, tool, args, extra string) string {
	params := Meta + `,"name":"` + tool + `","arguments":` + args
	if extra != "" {
		params += "," + extra
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s}}`, id, params)
}

// Post sends body, a tools/call of tool, to the endpoint url with the
// headers the protocol asks for, and authorization as the Authorization
// header unless it is empty. It returns the response with its body read.
func Post(url, authorization, tool, body string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp, out, err
}

// Trickle starts a slowloris request: it sends to the endpoint url the
// headers of a POST of body, a tools/call of tool, and only the first sent
// bytes of the body, and returns the connection, which holds the request
// open. Wait reads the server's answer, if it gives one.
func Trickle(endpoint, authorization, tool, body string, sent int) (net.Conn, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n", u.Path, u.Host)
	fmt.Fprintf(&b, "Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n")
	fmt.Fprintf(&b, "Mcp-Method: tools/call\r\nMcp-Name: %s\r\nContent-Length: %d\r\n", tool, len(body))
	if authorization != "" {
		fmt.Fprintf(&b, "Authorization: %s\r\n", authorization)
	}
	b.WriteString("\r\n")
	b.WriteString(body[:sent])
	if _, err := io.WriteString(conn, b.String()); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// Wait reads the answer to a request Trickle started, and closes its
// connection.
func Wait(conn net.Conn) (*http.Response, []byte, error) {
	defer conn.Close()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp, out, err
}
