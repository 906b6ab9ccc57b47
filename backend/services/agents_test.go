package services

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/store"
)

type agentRecorder struct {
	mu  sync.Mutex
	got []agentmgr.Progress
}

func (r *agentRecorder) Emit(name string, payload any) {
	if name != EventAgentInstallProgress {
		return
	}
	r.mu.Lock()
	r.got = append(r.got, payload.(agentmgr.Progress))
	r.mu.Unlock()
}

func writeScript(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestAgentService(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pathDir, data := t.TempDir(), t.TempDir()
	writeScript(t, pathDir, "claude", "echo '2.1.330 (Claude Code)'\n")
	// A fake npm: installing opencode-ai@1.18.33 works, any other version fails.
	writeScript(t, pathDir, "npm", `cmd=$1; shift; prefix=""; pkg=""
while [ $# -gt 0 ]; do case "$1" in --prefix) prefix=$2; shift;; -*) ;; *) pkg=$1;; esac; shift; done
[ "$cmd" = view ] && { echo 1.18.40; exit 0; }
[ "$pkg" = opencode-ai@1.18.33 ] || { echo "npm error notarget $pkg" >&2; exit 1; }
echo "npm http fetch GET 200 https://registry.npmjs.org/opencode-ai 5ms"
mkdir -p "$prefix/node_modules/opencode-ai" "$prefix/node_modules/.bin"
echo '{"version":"1.18.33"}' > "$prefix/node_modules/opencode-ai/package.json"
printf '#!/bin/sh\necho 1.18.33\n' > "$prefix/node_modules/.bin/opencode"; chmod +x "$prefix/node_modules/.bin/opencode"
`)
	look := func(name string) (string, error) {
		if filepath.IsAbs(name) {
			return name, nil
		}
		p := filepath.Join(pathDir, name)
		if _, err := os.Stat(p); err != nil {
			return "", err
		}
		return p, nil
	}
	mgr := agentmgr.New(agentmgr.Options{DataDir: data, Settings: agentmgr.DBSettings(db), LookPath: look, NPM: filepath.Join(pathDir, "npm")})
	reg := agents.NewRegistry(agents.Options{})
	rec := &agentRecorder{}
	svc := NewAgentService(ctx, mgr, reg, rec, func() []agentmgr.Spec { return agentmgr.Specs(nil) })

	list, err := svc.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(reg.List()) {
		t.Errorf("%d agents listed, %d registered", len(list), len(reg.List()))
	}
	byName := map[string]AgentView{}
	for _, v := range list {
		byName[string(v.Backend)] = v
	}
	if c := byName["claude-code"]; !c.Found || c.Version != "2.1.330 (Claude Code)" || !c.Registered || !c.Capabilities.Permissions {
		t.Errorf("claude: %+v", c)
	}
	if o := byName["opencode"]; o.Found || !strings.Contains(o.Error, "not found") || o.Settings.Env == nil {
		t.Errorf("opencode: %+v", o)
	}

	res, err := svc.Install("opencode", "9.9.9")
	if err != nil || res.OK || !strings.Contains(res.Log, "notarget") || res.Agent.Found {
		t.Fatalf("failed install: %+v, %v", res, err)
	}
	res, err = svc.Install("opencode", "")
	if err != nil || !res.OK || !res.Agent.Found || res.Agent.Source != agentmgr.SourceApp || res.Agent.AppInstalled != "1.18.33" {
		t.Fatalf("install: %+v, %v", res, err)
	}
	rec.mu.Lock()
	got := rec.got
	rec.mu.Unlock()
	if len(got) < 3 || !got[len(got)-1].Done || got[len(got)-1].Error != "" || !strings.Contains(got[len(got)-2].Line, "http fetch") {
		t.Errorf("progress events: %+v", got)
	}
	if v, err := svc.LatestVersion("opencode"); err != nil || v != "1.18.40" {
		t.Errorf("latest %q %v", v, err)
	}

	v, err := svc.SaveSettings("claude-code", agentmgr.AgentSettings{Env: map[string]string{"ANTHROPIC_API_KEY": "sk-1", "DEBUG": "1"}, DefaultMode: agent.ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	if v.Settings.Env["ANTHROPIC_API_KEY"] != agentmgr.Mask || v.Settings.Env["DEBUG"] != "1" {
		t.Errorf("saved settings come back %v, want the key masked", v.Settings.Env)
	}
	if s, _ := mgr.Settings(ctx, agent.BackendClaudeCode); s.Env["ANTHROPIC_API_KEY"] != "sk-1" {
		t.Errorf("stored %v", s.Env)
	}
	if _, err := svc.SaveSettings("claude-code", agentmgr.AgentSettings{DefaultMode: "yolo"}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("bad mode: %v", err)
	}
	if _, err := svc.Health("nope"); !errors.Is(err, ErrInvalidInput) || !errors.Is(err, agent.ErrUnknownBackend) {
		t.Errorf("unknown agent: %v", err)
	}
	if h, err := svc.Health("gemini"); err != nil || h.OK {
		t.Errorf("missing gemini health: %+v %v", h, err)
	}
	// The page's last known state: what List found, read back at once,
	// secrets masked.
	listed, err := svc.List()
	if err != nil {
		t.Fatal(err)
	}
	last, err := svc.LastKnown()
	if err != nil || len(last) != len(listed) || last[0].Backend != listed[0].Backend {
		t.Fatalf("last known %d agents (%v), listed %d", len(last), err, len(listed))
	}
	for _, a := range last {
		if a.Backend == agent.BackendClaudeCode && a.Settings.Env["ANTHROPIC_API_KEY"] != agentmgr.Mask {
			t.Errorf("last known state holds a secret: %v", a.Settings.Env)
		}
	}
}
