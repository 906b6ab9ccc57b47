package gemini

import (
	"encoding/json"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// SystemSettingsEnv names the settings file Gemini CLI reads with the
// highest precedence (its "system settings"); the app points it at a 0600
// file holding only its MCP server, so the user's own settings (in their
// home and the project) stay as they are and merge under it.
const SystemSettingsEnv = "GEMINI_CLI_SYSTEM_SETTINGS_PATH"

// MCPSettings is the settings.json carrying the app's MCP server:
// streamable HTTP (httpUrl), the token in a header, trusted: its tools run
// without a confirmation in every mode (headless turns cannot ask; a tool
// that would ask is hidden from the model). Verified with the real CLI
// (TestGeminiMCP, Ask mode).
func MCPSettings(m *agent.MCPServer) ([]byte, error) {
	return json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		m.Name: map[string]any{"httpUrl": m.URL, "headers": map[string]string{"Authorization": m.Header()}, "trust": true,
			"timeout": 24 * 60 * 60 * 1000}, // ms: ask_user waits for the user
	}}, "", "  ")
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
	data, err := MCPSettings(m)
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
