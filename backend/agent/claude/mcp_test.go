package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

func TestWithMCP(t *testing.T) {
	m := &agent.MCPServer{Name: "jean-claude", URL: "http://127.0.0.1:1234/mcp", Token: "s3cret"}
	dir, cfg, err := withMCP(agent.Config{Mode: agent.ModeAsk, MCP: m, SessionAllowedTools: []string{"Bash(ls)"}})
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Remove()
	p := filepath.Join(dir.Path, mcpFile)
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v", st, err)
	}
	var got struct {
		MCPServers map[string]struct {
			Type, URL string
			Headers   map[string]string
		} `json:"mcpServers"`
	}
	data, _ := os.ReadFile(p)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	s := got.MCPServers["jean-claude"]
	if s.Type != "http" || s.URL != m.URL || s.Headers["Authorization"] != "Bearer s3cret" {
		t.Errorf("config = %s", data)
	}
	if !slices.Equal(cfg.SessionAllowedTools, []string{"Bash(ls)", "mcp__jean-claude"}) {
		t.Errorf("allowed = %v", cfg.SessionAllowedTools)
	}
	args, _ := Args(cfg)
	if strings.Contains(strings.Join(args, " "), "s3cret") {
		t.Error("the token is on the command line")
	}
	dir.Remove()
	if _, err := os.Stat(dir.Path); !os.IsNotExist(err) {
		t.Error("dir not removed")
	}
	if env := strings.Join(New(Options{}).env(cfg), "\n"); !strings.Contains(env, "MCP_TOOL_TIMEOUT=86400000") {
		t.Error("no long MCP tool timeout with the app's server")
	}
	if env := strings.Join(New(Options{}).env(agent.Config{}), "\n"); strings.Contains(env, "MCP_TOOL_TIMEOUT=86400000") {
		t.Error("MCP tool timeout without the app's server")
	}
	if d, _, _ := withMCP(agent.Config{}); d != nil {
		t.Error("a dir without MCP")
	}
}
