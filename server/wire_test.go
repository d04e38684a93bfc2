package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/repo-mcp/repo-mcp/server"
	"golang.org/x/tools/txtar"
)

// TestWire replays the client lines of each testdata/wire/*.txtar file
// against the test server over a stream pair, one message at a time, and
// compares the server's replies with the file's server section (go test
// -update rewrites it). In client lines, ${pad:N} stands for N bytes of
// padding, to build oversized frames, and a line "!noanswer MESSAGE" sends
// a request the server must not answer (a call the client then cancels):
// no reply is read for it, so an answer would take the place of a later
// request's; the replies left when the input ends are read to the end of
// the stream; and the server section closes with "# no answer to id N"
// for each such request that got none.
func TestWire(t *testing.T) {
	files, err := filepath.Glob("testdata/wire/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			client, want := section(ar, "client"), section(ar, "server")
			got := replay(t, client)
			if *update {
				setSection(ar, "server", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("server replies differ (-want +got; go test -update rewrites them):\n%s", diff)
			}
		})
	}
}

func section(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

func setSection(ar *txtar.Archive, name, data string) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = []byte(data)
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(data)})
}

var (
	padPattern       = regexp.MustCompile(`\$\{pad:([0-9]+)\}`)
	generatedPattern = regexp.MustCompile(`\b([rt])-[0-9a-f]{16}\b`)
	statePattern     = regexp.MustCompile(`"requestState":"[^"]*"`)
)

// replay sends each client line and collects the replies.
func replay(t *testing.T, client string) string {
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	s := newTestServer(server.Options{
		Logger:        slog.New(slog.DiscardHandler),
		Audit:         io.Discard,
		MaxFrameBytes: 2048,
	})
	done := make(chan error, 1)
	go func() {
		err := s.Serve(context.Background(), serverIn, serverOut)
		serverOut.Close() // the replies are read to the end of the stream
		done <- err
	}()
	replies := bufio.NewReader(clientIn)
	var got strings.Builder
	var silent []string // ids of the requests that must get no answer
	for _, line := range strings.Split(strings.TrimSpace(client), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line, noAnswer := strings.CutPrefix(line, "!noanswer ")
		line = padPattern.ReplaceAllStringFunc(line, func(m string) string {
			n, _ := strconv.Atoi(padPattern.FindStringSubmatch(m)[1])
			return strings.Repeat("x", n)
		})
		if _, err := io.WriteString(clientOut, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if noAnswer {
			silent = append(silent, messageID(line))
		}
		if noAnswer || isNotification(line) {
			continue
		}
		reply, err := replies.ReadString('\n')
		if err != nil {
			t.Fatalf("no reply to %.80s: %v", line, err)
		}
		got.WriteString(normalize(reply))
	}
	clientOut.Close()
	rest, err := io.ReadAll(replies)
	if err != nil {
		t.Fatal(err)
	}
	got.WriteString(normalize(string(rest)))
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	answered := map[string]bool{}
	for reply := range strings.Lines(got.String()) {
		answered[messageID(reply)] = true
	}
	for _, id := range silent {
		if !answered[id] {
			fmt.Fprintf(&got, "# no answer to id %s\n", id)
		}
	}
	return got.String()
}

// normalize replaces what the server generates afresh in each run.
func normalize(reply string) string {
	reply = generatedPattern.ReplaceAllString(reply, `$1-*`)
	return statePattern.ReplaceAllString(reply, `"requestState":"*"`)
}

// messageID returns the id of a message as its JSON text, or "" when it
// has none.
func messageID(line string) string {
	var m struct{ ID json.RawMessage }
	if json.Unmarshal([]byte(line), &m) != nil {
		return ""
	}
	return string(m.ID)
}

// isNotification reports whether line is a well-formed message, or a
// non-empty batch of them, that gets no reply.
func isNotification(line string) bool {
	var batch []json.RawMessage
	if json.Unmarshal([]byte(line), &batch) == nil {
		for _, m := range batch {
			if !isNotification(string(m)) {
				return false
			}
		}
		return len(batch) > 0
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &m) != nil {
		return false
	}
	_, hasID := m["id"]
	_, hasMethod := m["method"]
	return hasMethod && !hasID
}
