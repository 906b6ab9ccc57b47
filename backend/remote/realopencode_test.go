package remote_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/remote"
)

// The real `opencode serve` (JC_REALCLI_BIN: the real-CLI suite's
// folder) on the host: it starts behind a relay there, answers its health
// through the ssh forward, a session is created and its event stream
// connected; its password is in no file under the host's HOME (OpenCode
// writes its logs and data there); Stop and Dispose leave nothing there.
func TestRealOpenCodeOnHost(t *testing.T) {
	dir := realCLIBin(t)
	e := newHostEnv(t)
	installOnHost(t, e.srv, filepath.Join(dir, "opencode"))
	ctx := context.Background()
	tr, ok, err := (&remote.Tasks{Pool: e.pool, DB: e.db}).TransportFor(ctx, e.projectID, nil, nil)
	if err != nil || !ok {
		t.Fatalf("transport: %v %v", ok, err)
	}
	config := filepath.Join(t.TempDir(), "opencode.json")
	must(t, os.WriteFile(config, []byte(`{"$schema":"https://opencode.ai/config.json","autoupdate":false,"share":"disabled"}`), 0o600))
	b := opencode.New(opencode.Options{Binary: "/nowhere/opencode", HealthTimeout: 3 * time.Minute, Env: map[string]string{
		"OPENCODE_CONFIG": config, "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1"}})
	repo := filepath.Join(e.srv.Home, "code", "app")
	start := time.Now()
	s, err := b.Start(agent.WithHostTransport(agent.WithTaskID(ctx, "real"), tr), agent.Config{Cwd: repo, Mode: agent.ModeAsk}, "")
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Logf("session on the host's real server after %s", time.Since(start).Round(time.Millisecond))
	password := serverPassword(t, e)
	if fwd := forwards(e); len(fwd) == 0 {
		t.Fatal("no ssh -W forward open while the session follows its events")
	}
	must(t, s.Stop(ctx))
	must(t, b.Dispose(ctx))
	if left := e.srv.WaitNoRemoteProcesses(ctx, 20*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host: %v", left)
	}
	if hits := grepTree(e.srv.Home, password); len(hits) > 0 {
		t.Fatalf("the password was written on the host: %v", hits)
	}
}

// serverPassword reads OPENCODE_SERVER_PASSWORD of the opencode process
// running in the host's session.
func serverPassword(t *testing.T, e *remoteEnv) string {
	for _, p := range e.srv.RemoteProcesses() {
		f := strings.Fields(p)
		if len(f) < 3 || !strings.Contains(p, " serve ") {
			continue
		}
		pid, _ := strconv.Atoi(f[0])
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		must(t, err)
		for _, kv := range strings.Split(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, "OPENCODE_SERVER_PASSWORD="); ok && len(v) >= 16 {
				return v
			}
		}
	}
	t.Fatalf("no opencode serve with a password on the host: %v", e.srv.RemoteProcesses())
	return ""
}
