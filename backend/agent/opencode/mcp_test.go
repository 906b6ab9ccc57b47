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
	waitNotice(t, s2)
	// When the first task stops, the server leaves the folder's instance,
	// and the folder's next task registers its own.
	if err := s1.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	_ = s2.Stop(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for len(findLog(f, "POST /mcp/jean-claude/disconnect?directory=%2Fp")) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no disconnect after the first task stopped: %v", findLog(f, "POST /mcp"))
		}
		time.Sleep(10 * time.Millisecond)
	}
	s3, err := b.Start(ctx, agent.Config{Cwd: "/p", MCP: &agent.MCPServer{Name: "jean-claude", URL: m.URL, Token: "third"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s3.Stop(ctx) })
	if posts := findLog(f, "POST /mcp?directory=%2Fp "); len(posts) != 2 || !strings.Contains(posts[1], "Bearer third") {
		t.Errorf("the next task did not register its server: %v", posts)
	}
}

func waitNotice(t *testing.T, s agent.Session) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case bt := <-s.Events():
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
