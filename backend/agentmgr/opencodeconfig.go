package agentmgr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/atomicfile"
)

// OpenCodeConfig is what goes into a generated opencode.json.
type OpenCodeConfig struct {
	// Mode picks the permission rules (see OpenCodePermissions).
	Mode agent.InteractionMode
	// Model is the default "provider/model" (optional).
	Model string
	// Provider adds an OpenAI-compatible provider (optional).
	Provider *OpenAICompatible
}

// OpenAICompatible is an OpenAI-compatible provider for OpenCode
// (@ai-sdk/openai-compatible).
type OpenAICompatible struct {
	ID, Name, BaseURL, APIKey string
	Models                    []string
}

// OpenCodePermissions are OpenCode's `permission` rules for a mode:
// ask → ask for edit, bash and webfetch; accept-edits → edits allowed,
// the rest asks; bypass → everything allowed; plan → edits denied, the
// rest asks.
func OpenCodePermissions(m agent.InteractionMode) map[string]string {
	switch m {
	case agent.ModeBypass:
		return map[string]string{"edit": "allow", "bash": "allow", "webfetch": "allow"}
	case agent.ModeAcceptEdits:
		return map[string]string{"edit": "allow", "bash": "ask", "webfetch": "ask"}
	case agent.ModePlan:
		return map[string]string{"edit": "deny", "bash": "ask", "webfetch": "ask"}
	default:
		return map[string]string{"edit": "ask", "bash": "ask", "webfetch": "ask"}
	}
}

// JSON returns the opencode.json document.
func (c OpenCodeConfig) JSON() ([]byte, error) {
	if c.Mode != "" && !c.Mode.Valid() {
		return nil, fmt.Errorf("agentmgr: opencode config: unknown mode %q", c.Mode)
	}
	doc := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"permission": OpenCodePermissions(c.Mode),
	}
	if c.Model != "" {
		doc["model"] = c.Model
		doc["small_model"] = c.Model
	}
	if p := c.Provider; p != nil {
		if p.ID == "" || p.BaseURL == "" {
			return nil, errors.New("agentmgr: opencode config: a provider needs an id and a base URL")
		}
		models := map[string]any{}
		for _, m := range p.Models {
			models[m] = map[string]any{"name": m, "tool_call": true,
				"limit": map[string]any{"context": 128000, "output": 8192}}
		}
		opts := map[string]any{"baseURL": p.BaseURL}
		if p.APIKey != "" {
			opts["apiKey"] = p.APIKey
		}
		name := p.Name
		if name == "" {
			name = p.ID
		}
		doc["provider"] = map[string]any{p.ID: map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": name, "options": opts, "models": models}}
	}
	return json.MarshalIndent(doc, "", "  ")
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// WriteOpenCodeConfig writes c as <dataDir>/agent-configs/opencode/<key>.json
// (key is a session or task id; unsafe characters are replaced) and returns
// the path, for OPENCODE_CONFIG. It never writes into a project.
func WriteOpenCodeConfig(dataDir, key string, c OpenCodeConfig) (string, error) {
	if dataDir == "" {
		return "", errors.New("agentmgr: opencode config: no data directory")
	}
	key = strings.Trim(unsafeName.ReplaceAllString(key, "_"), "._")
	if key == "" {
		return "", errors.New("agentmgr: opencode config: empty key")
	}
	data, err := c.JSON()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(dataDir, "agent-configs", "opencode")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("agentmgr: opencode config: %w", err)
	}
	path := filepath.Join(dir, key+".json")
	if err := atomicfile.Write(path, data); err != nil {
		return "", fmt.Errorf("agentmgr: opencode config: %w", err)
	}
	return path, nil
}

// OpenCodeServerEnv is the environment of the shared `opencode serve`: the
// OpenCode agent's settings env plus OPENCODE_CONFIG, a config generated
// into the data dir ("server.json") from its default model and mode, unless
// the settings set OPENCODE_CONFIG themselves.
func (m *Manager) OpenCodeServerEnv(ctx context.Context) (map[string]string, error) {
	set, err := m.Settings(ctx, agent.BackendOpenCode)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for k, v := range set.Env {
		env[k] = v
	}
	if _, ok := env["OPENCODE_CONFIG"]; !ok {
		p, err := WriteOpenCodeConfig(m.opt.DataDir, "server", OpenCodeConfig{Mode: set.DefaultMode, Model: set.DefaultModel})
		if err != nil {
			return env, err
		}
		env["OPENCODE_CONFIG"] = p
	}
	return env, nil
}
