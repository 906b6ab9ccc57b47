package opencode

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// The app's MCP server is registered with the session's folder instance
// (POST /mcp); a second live task in the same folder gets a notice
// instead of taking over the first one's server.
func TestMCPRegistered(t *testing.T) {
	f, b := newFake(t, "serve-basic.sse")
	ctx := context.Background()
	m := &agent.MCPServer{Name: "jean-claude", URL: "http://127.0.0.1:9/mcp", Token: "tok-s3cret"}
	s1, err := b.Start(ctx, agent.Config{Cwd: "/p", MCP: m}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s1.Stop(ctx) })
	posts := findLog(f, "POST /mcp?directory=%2Fp ")
	if len(posts) != 1 || !strings.Contains(posts[0], `"url":"http://127.0.0.1:9/mcp"`) || !strings.Contains(posts[0], "Bearer tok-s3cret") ||
		!strings.Contains(posts[0], `"type":"remote"`) {
		t.Fatalf("POST /mcp = %v", posts)
	}
	s2, err := b.Start(ctx, agent.Config{Cwd: "/p", MCP: &agent.MCPServer{Name: "jean-claude", URL: m.URL, Token: "other"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s2.Stop(ctx) })
	if n := len(findLog(f, "POST /mcp")); n != 1 {
		t.Errorf("the second task in the folder replaced the server (%d POST /mcp)", n)
	}
	timeout := time.After(5 * time.Second)
	for {
		select {
		case bt := <-s2.Events():
			for _, ev := range bt.Events {
				if ev.Message != nil && len(ev.Message.Parts) == 1 && ev.Message.Parts[0].Subtype == agent.MCPNotice {
					return
				}
			}
		case <-timeout:
			t.Fatal("no notice for the second task")
		}
	}
}
