package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/repo-mcp/repo-mcp/internal/peers"
	"golang.org/x/tools/txtar"
)

// TestResourceTranscripts replays the client lines of each
// testdata/resources/*.txtar file against the binary over stdio, serving
// the fixture repository, and compares the replies with the file's server
// section (go test -update rewrites it). ${head} stands for the fixture's
// commit in both sections. The transcripts pin read_file's resource_link
// for a read cut at its byte budget, and resources/read of it and of what
// the policy denies.
func TestResourceTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/resources/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	root, head := fixtureRepo(t)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			client := strings.ReplaceAll(section(ar, "client"), "${head}", head)
			got := strings.ReplaceAll(replayStdio(t, root, client), head, "${head}")
			if *update {
				setSection(ar, "server", got)
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(section(ar, "server"), got); diff != "" {
				t.Errorf("server replies differ (-want +got; go test -update rewrites them):\n%s", diff)
			}
		})
	}
}

var generatedIDPattern = regexp.MustCompile(`\br-[0-9a-f]{16}\b`)

// replayStdio sends each client line to a fresh server and reads one
// reply per request (a line without an id is a notification).
func replayStdio(t *testing.T, root, client string) string {
	cmd := exec.Command(repoMCP(t), "serve", "--index-cache", "off", "--workspace", "fx="+root)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	replies := bufio.NewReader(out)
	var got strings.Builder
	for line := range strings.Lines(client) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(line, `"id":`) {
			continue
		}
		reply, err := replies.ReadString('\n')
		if err != nil {
			t.Fatalf("no reply to %.80s: %v", line, err)
		}
		got.WriteString(generatedIDPattern.ReplaceAllString(reply, "r-*"))
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the server ended with %v", err)
	}
	return got.String()
}

// TestTypeScriptSDKResourceLink follows read_file's resource_link with the
// TypeScript SDK's client: the capability is declared, the link names the
// cut file at its commit, resources/read returns the whole file, and the
// same URI for a denied path is refused.
func TestTypeScriptSDKResourceLink(t *testing.T) {
	node := peers.Node(t)
	peers.Package(t, "@modelcontextprotocol/sdk")
	root, head := fixtureRepo(t)
	cmd := exec.Command(node, "testdata/resource-link-client.cjs", peers.Dir(t), repoMCP(t), "serve", "--index-cache", "off", "--workspace", "fx="+root)
	cmd.Env = peers.Env(t)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("resource-link-client: %v\n%s", err, stderr.String())
	}
	var res struct {
		Capabilities struct{ Resources any }
		Link         struct{ URI, Name string }
		Text, Denied string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if res.Capabilities.Resources == nil {
		t.Errorf("no resources capability: %s", out)
	}
	if want := "repo://fx/" + head + "/README.md"; res.Link.URI != want || res.Link.Name != "README.md" {
		t.Errorf("link = %+v; want %s", res.Link, want)
	}
	if res.Text != "# Fixture\nread by peers\n" {
		t.Errorf("resources/read of the link = %q", res.Text)
	}
	if !strings.Contains(res.Denied, "permission_denied") {
		t.Errorf("resources/read of a denied path = %q", res.Denied)
	}
}
