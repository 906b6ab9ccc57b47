package claude

import (
	"encoding/json"
	"slices"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// MCPToolTimeout is Claude Code's MCP_TOOL_TIMEOUT (ms) when the app's
// server is configured: a day, as ask_user waits for the user.
const MCPToolTimeout = "86400000"

// mcpFile is the --mcp-config file's name in its private dir.
const mcpFile = "mcp.json"

// MCPConfig is the --mcp-config file for the app's MCP server: one
// streamable HTTP server with its bearer token in a header.
func MCPConfig(m *agent.MCPServer) ([]byte, error) {
	type server struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	}
	return json.MarshalIndent(map[string]any{"mcpServers": map[string]server{
		m.Name: {Type: "http", URL: m.URL, Headers: map[string]string{"Authorization": m.Header()}},
	}}, "", "  ")
}

// MCPAllowRule allows every tool of the app's server without asking
// (Claude Code's server-wide rule "mcp__<server>"): they report to and ask
// the user, or start a sub-task that asks for its own permissions.
func MCPAllowRule(m *agent.MCPServer) string { return "mcp__" + m.Name }

// withMCP writes the app's MCP server config (0600, in a 0700 temp dir;
// the token never goes on the command line) and allows its tools; nil dir
// when cfg has no MCP server.
func withMCP(cfg agent.Config) (*agent.PrivateDir, agent.Config, error) {
	if cfg.MCP == nil {
		return nil, cfg, nil
	}
	data, err := MCPConfig(cfg.MCP)
	if err != nil {
		return nil, cfg, err
	}
	dir, err := agent.NewPrivateDir("claude-mcp")
	if err != nil {
		return nil, cfg, err
	}
	if _, err := dir.Write(mcpFile, data); err != nil {
		dir.Remove()
		return nil, cfg, err
	}
	rule := MCPAllowRule(cfg.MCP)
	if !slices.Contains(cfg.SessionAllowedTools, rule) {
		cfg.SessionAllowedTools = append(slices.Clone(cfg.SessionAllowedTools), rule)
	}
	return dir, cfg, nil
}
