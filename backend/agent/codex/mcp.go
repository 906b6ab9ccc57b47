package codex

import "github.com/jean-claude/jean-claude/backend/agent"

// MCPTokenEnv holds the app's MCP token in the app-server's environment:
// Codex reads a streamable HTTP server's bearer token from the variable its
// bearer_token_env_var names, so the token is neither on the command line
// nor in the JSON-RPC messages (which are stored).
const MCPTokenEnv = "JEAN_CLAUDE_MCP_TOKEN"

// MCPConfig is thread/start's (and thread/resume's) config override adding
// the app's MCP server (mcp_servers.<name>: url, bearer_token_env_var);
// nil without a server. default_tools_approval_mode "approve": Codex runs
// the server's tools without asking, in every mode (without it, Ask mode's
// approval policy asks through an mcpServer/elicitation/request); they
// only report to or ask the user, or start a sub-task that asks for its
// own permissions, as with Claude Code (verified with the real CLI:
// TestCodexMCP).
func MCPConfig(m *agent.MCPServer) map[string]any {
	if m == nil {
		return nil
	}
	return map[string]any{"mcp_servers." + m.Name: map[string]any{"url": m.URL, "bearer_token_env_var": MCPTokenEnv,
		"default_tools_approval_mode": "approve", "tool_timeout_sec": 24 * 60 * 60}} // ask_user waits for the user
}
