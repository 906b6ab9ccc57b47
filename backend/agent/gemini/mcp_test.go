package gemini

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
)

func TestMCPSettings(t *testing.T) {
	m := &agent.MCPServer{Name: "jean-claude", URL: "http://127.0.0.1:9/mcp", Token: "s3cret"}
	dir, env, err := mcpSettings(m)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Remove()
	if len(env) != 1 || !strings.HasPrefix(env[0], SystemSettingsEnv+"=") {
		t.Fatalf("env = %v", env)
	}
	p := strings.TrimPrefix(env[0], SystemSettingsEnv+"=")
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("settings file %v %v", st, err)
	}
	var got struct {
		MCPServers map[string]struct {
			HTTPURL string            `json:"httpUrl"`
			Headers map[string]string `json:"headers"`
			Trust   bool              `json:"trust"`
		} `json:"mcpServers"`
	}
	data, _ := os.ReadFile(p)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	s := got.MCPServers["jean-claude"]
	if s.HTTPURL != m.URL || s.Headers["Authorization"] != "Bearer s3cret" || !s.Trust {
		t.Errorf("settings = %s", data)
	}
	if d, e, _ := mcpSettings(nil); d != nil || e != nil {
		t.Error("settings without a server")
	}
}
