package remote_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/store"
)

// The real headless Gemini CLI (JC_REALCLI_BIN) runs a turn on the host:
// its settings are the host's (~/.gemini in the host's HOME), its API key
// and the model server's address come in the agent's environment (the
// repository's fake model server: the sshd's "host" shares this machine's
// loopback); the answer is stored, the turn completes, nothing is left.
func TestRealGeminiOnHost(t *testing.T) {
	e, model, answer := realCLIOnHost(t, "gemini")
	must(t, os.MkdirAll(filepath.Join(e.srv.Home, ".gemini"), 0o755))
	must(t, os.WriteFile(filepath.Join(e.srv.Home, ".gemini", "settings.json"), []byte(`{
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false, "maxAttempts": 1},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}}
}`), 0o644))
	e.reg.Register(withEnv{gemini.New(gemini.Options{Binary: "/nowhere/gemini"}), map[string]string{
		"GEMINI_API_KEY": e.secret, "GOOGLE_GEMINI_BASE_URL": model.URL(), "GEMINI_CLI_TRUST_WORKSPACE": "true", "NO_BROWSER": "1"}})
	ctx := context.Background()
	o := e.orchestrator(t, false)
	defer o.Close(ctx)
	id := e.startTaskWith(t, o, agent.BackendGemini, "[scenario:text] Say hello.")
	tr := waitTask(t, e.db, id, "the turn to end", func(tr store.TaskRun) bool {
		return tr.Status != store.StatusRunning && tr.Status != store.StatusWaiting
	})
	t.Logf("turn: %s %q", tr.Status, tr.StatusReason)
	var n int
	must(t, e.db.R.QueryRow(`SELECT COUNT(*) FROM agent_messages WHERE taskId = ? AND normalizedData LIKE ?`, id, "%"+answer+"%").Scan(&n))
	if tr.Status != store.StatusCompleted || n == 0 || !strings.Contains(storedFrames(t, e, id), `"type":"result","timestamp"`) {
		t.Fatalf("the real CLI's answer is not stored: %s %q (%d messages)\n%s", tr.Status, tr.StatusReason, n, storedFrames(t, e, id))
	}
	must(t, o.Close(ctx))
	if left := e.srv.WaitNoRemoteProcesses(ctx, 20*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host: %v", left)
	}
	if hits := grepTree(e.srv.Home, e.secret); len(hits) > 0 {
		t.Fatalf("the API key was written on the host: %v", hits)
	}
}
