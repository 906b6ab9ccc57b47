package codex

import (
	"context"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// thread/start carries the app's MCP server with the name of the variable
// holding its token; the token itself is never in a stored frame.
func TestMCPConfigOnThreadStart(t *testing.T) {
	b := New(Options{Binary: fakeAppServer(t)})
	ctx := context.Background()
	m := &agent.MCPServer{Name: "jean-claude", URL: "http://127.0.0.1:9/mcp", Token: "tok-s3cret"}
	s, err := b.Start(ctx, agent.Config{Cwd: t.TempDir(), MCP: m, Env: map[string]string{"FAKE_MODE": "slow"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Stop(ctx) })
	next(t, s, "session id", is(agent.EventSessionID))
	var start string
	for _, bt := range seen[s] {
		if strings.Contains(string(bt.Frame), "tok-s3cret") {
			t.Errorf("a stored frame holds the token: %s", bt.Frame)
		}
		if strings.Contains(string(bt.Frame), `"thread/start"`) {
			start = string(bt.Frame)
		}
	}
	want := `"config":{"mcp_servers.jean-claude":{"bearer_token_env_var":"JEAN_CLAUDE_MCP_TOKEN","default_tools_approval_mode":"approve","tool_timeout_sec":86400,"url":"http://127.0.0.1:9/mcp"}}`
	if !strings.Contains(start, want) {
		t.Errorf("thread/start = %s\nwant it to contain %s", start, want)
	}
	if MCPConfig(nil) != nil {
		t.Error("config without a server")
	}
}
