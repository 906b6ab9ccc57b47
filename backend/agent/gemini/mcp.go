package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// SystemSettingsEnv names the settings file Gemini CLI reads with the
// highest precedence (its "system settings"); the app points it at a 0600
// file holding only its MCP server, so the user's own settings (in their
// home and the project) stay as they are and merge under it.
const SystemSettingsEnv = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"

// MCPSettings is the settings.json carrying the app's MCP server:
// streamable HTTP (httpUrl), the token in a header, trusted, and policy
// (policyPaths) the policy file allowing its tools.
func MCPSettings(m *agent.MCPServer, policy string) ([]byte, error) {
	return json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		m.Name: map[string]any{"httpUrl": m.URL, "headers": map[string]string{"Authorization": m.Header()}, "trust": true,
			"timeout": 24 * 60 * 60 * 1000}, // ms: ask_user waits for the user
	}, "policyPaths": []string{policy}}, "", "  ")
}

// MCPPolicy is a policy file (Gemini CLI's policy engine, TOML) allowing
// every tool of the app's server. Headless Gemini CLI (0.61) treats a tool
// its policy would ask for as denied and hides it from the model, trust
// notwithstanding (verified with the real CLI: TestGeminiMCP); the app's
// tools only report to or ask the user, so they run without a prompt, in
// every mode, as with Claude Code.
func MCPPolicy(m *agent.MCPServer) []byte {
	return fmt.Appendf(nil, "[[rule]]\nmcpName = %q\ndecision = \"allow\"\npriority = 900\n", m.Name)
}

// mcpSettings writes MCPSettings into a private dir and returns the
// environment that points Gemini CLI at it (nil, nil without a server).
func mcpSettings(m *agent.MCPServer) (*agent.PrivateDir, []string, error) {
	if m == nil {
		return nil, nil, nil
	}
	dir, err := agent.NewSecurePrivateDir("gemini-mcp")
	if err != nil {
		return nil, nil, err
	}
	policy, err := dir.Write("jean-claude-mcp.toml", MCPPolicy(m))
	if err != nil {
		dir.Remove()
		return nil, nil, err
	}
	data, err := MCPSettings(m, policy)
	if err != nil {
		dir.Remove()
		return nil, nil, err
	}
	p, err := dir.Write("settings.json", data)
	if err != nil {
		dir.Remove()
		return nil, nil, err
	}
	return dir, []string{SystemSettingsEnv + "=" + p}, nil
}
