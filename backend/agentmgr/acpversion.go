package agentmgr

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
)

// acpVersion is an ACP agent's version from its initialize answer
// (agentInfo.version, comparable with the pinned and latest versions), for agents whose `--version` does not work (codex-acp exits 2,
// claude-code-acp prints nothing). Cached while the binary is unchanged;
// "" when the agent sends no agentInfo or does not answer.
func (m *Manager) acpVersion(ctx context.Context, spec Spec, path string, set AgentSettings) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	key := real + "#acp-initialize"
	st, statErr := os.Stat(real)
	if statErr == nil {
		m.mu.Lock()
		e, ok := m.versions[key]
		m.mu.Unlock()
		if ok && e.mod.Equal(st.ModTime()) && e.size == st.Size() {
			return e.version
		}
	}
	ctx, cancel := context.WithTimeout(ctx, m.opt.VersionTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "jc-version-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(dir)
	args := append(append([]string{}, spec.Args...), set.ExtraArgs...)
	v, err := m.stdioProbe(ctx, path, args, set.envList(), dir,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}}}`,
		agentInfoVersion)
	if err != nil || v == "" {
		return ""
	}
	if statErr == nil {
		m.mu.Lock()
		m.versions[key] = versionEntry{mod: st.ModTime(), size: st.Size(), version: v}
		m.mu.Unlock()
	}
	return v
}

// agentInfoVersion reads agentInfo from an initialize result.
func agentInfoVersion(line []byte) (string, bool, error) {
	var f struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			AgentInfo *struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"agentInfo"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &f) != nil || string(f.ID) != "1" {
		return "", false, nil
	}
	if f.Result == nil || f.Result.AgentInfo == nil || f.Result.AgentInfo.Version == "" {
		return "", true, nil
	}
	return f.Result.AgentInfo.Version, true, nil
}
