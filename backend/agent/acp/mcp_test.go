package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// The app's MCP server goes to an agent that takes HTTP MCP servers on
// session/new, with its token in a header that is never stored; an agent
// that does not gets none, and the task says so.
func TestMCPServers(t *testing.T) {
	m := &agent.MCPServer{Name: "jean-claude", URL: "http://127.0.0.1:9/mcp", Token: "tok-s3cret"}
	for _, http := range []bool{true, false} {
		t.Run(map[bool]string{true: "http", false: "no-http"}[http], func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "mcp.json")
			env := map[string]string{"FAKEAGENT_MCP_FILE": file}
			if http {
				env["FAKEAGENT_MCP_HTTP"] = "1"
			}
			b, err := New(Config{Name: "acp.test.fake", DisplayName: "Fake", Command: fakeAgent(t), Env: env})
			if err != nil {
				t.Fatal(err)
			}
			s, err := b.Start(context.Background(), agent.Config{Backend: "acp.test.fake", Cwd: t.TempDir(), Mode: agent.ModeAsk, MCP: m}, "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = s.Stop(context.Background()) })
			c := collect(s)
			c.waitFor(t, 0, "session id", isType(agent.EventSessionID))
			got, _ := os.ReadFile(file)
			if http && (!strings.Contains(string(got), `"url":"http://127.0.0.1:9/mcp"`) || !strings.Contains(string(got), "Bearer tok-s3cret")) {
				t.Errorf("session/new mcpServers = %s", got)
			}
			if !http {
				if string(got) != "[]" {
					t.Errorf("mcpServers sent to an agent without HTTP MCP: %s", got)
				}
				c.waitFor(t, 0, "the notice", func(e agent.Event) bool {
					return e.Message != nil && len(e.Message.Parts) == 1 && e.Message.Parts[0].Subtype == agent.MCPNotice
				})
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, bt := range c.batches {
				if strings.Contains(string(bt.Frame), "tok-s3cret") {
					t.Errorf("a stored frame holds the token: %s", bt.Frame)
				}
			}
		})
	}
}
