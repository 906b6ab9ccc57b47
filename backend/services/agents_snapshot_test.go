package services

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/bootpage"
	"github.com/jean-claude/jean-claude/backend/store"
)

// bootAgents serves index.html through the boot snapshot middleware, wired
// as startup.go wires it, and returns the page and the agents it inlines.
func bootAgents(t *testing.T, db *store.DB, svc *AgentService) (string, []AgentView) {
	t.Helper()
	page := `<html><script id="jc-snapshot" type="application/json">{}</script></html>`
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(page)) })
	mw := bootpage.Middleware(bootpage.Sources{
		Projects: func(ctx context.Context) ([]store.Project, error) { return store.ListProjects(ctx, db.R) },
		Agents:   func(context.Context) (any, error) { return svc.LastKnown() },
	})
	rec := httptest.NewRecorder()
	mw(next).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	body := rec.Body.String()
	_, after, _ := strings.Cut(body, `type="application/json">`)
	data, _, _ := strings.Cut(after, "</script>")
	var snap struct {
		Agents []AgentView `json:"agents"`
	}
	if err := json.Unmarshal([]byte(data), &snap); err != nil {
		t.Fatalf("snapshot %q: %v", data, err)
	}
	return body, snap.Agents
}

func TestBootSnapshotCarriesLastKnownAgentsMasked(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	notFound := func(string) (string, error) { return "", errors.New("not found") }
	mgr := agentmgr.New(agentmgr.Options{DataDir: t.TempDir(), Settings: agentmgr.DBSettings(db), LookPath: notFound})
	svc := NewAgentService(ctx, mgr, agents.NewRegistry(agents.Options{}), &agentRecorder{}, func() []agentmgr.Spec { return agentmgr.Specs(nil) })

	if _, as := bootAgents(t, db, svc); len(as) != 0 {
		t.Fatalf("before the first List the snapshot holds %d agents", len(as))
	}
	const apiKey, marked, later = "sk-ant-api03-boot-snapshot-key", "plain-but-marked-value", "marked-after-the-list"
	if _, err := svc.SaveSettings("claude-code", agentmgr.AgentSettings{Env: map[string]string{"ANTHROPIC_API_KEY": apiKey, "MINE": marked, "DEBUG": "1"}, Secrets: []string{"MINE"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SaveSettings("opencode", agentmgr.AgentSettings{Env: map[string]string{"PLAIN": later}}); err != nil {
		t.Fatal(err)
	}
	listed, err := svc.List()
	if err != nil {
		t.Fatal(err)
	}
	// Marked secret after that List: the stored state holds it in clear.
	if _, err := svc.SaveSettings("opencode", agentmgr.AgentSettings{Env: map[string]string{"PLAIN": later}, Secrets: []string{"PLAIN"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mgr.LastKnown(ctx), later) {
		t.Fatalf("the test needs a stored state holding %q in clear", later)
	}

	body, as := bootAgents(t, db, svc)
	if len(as) != len(listed) || len(as) == 0 || as[0].Backend != listed[0].Backend {
		t.Fatalf("snapshot has %d agents, List found %d", len(as), len(listed))
	}
	for _, secret := range []string{apiKey, marked, later} {
		if strings.Contains(body, secret) {
			t.Errorf("the page carries the secret %q: %s", secret, body)
		}
	}
	byName := map[string]AgentView{}
	for _, a := range as {
		byName[string(a.Backend)] = a
	}
	if env := byName["claude-code"].Settings.Env; env["ANTHROPIC_API_KEY"] != agentmgr.Mask || env["MINE"] != agentmgr.Mask || env["DEBUG"] != "1" {
		t.Errorf("claude-code env in the snapshot: %v", env)
	}
	if env := byName["opencode"].Settings.Env; env["PLAIN"] != agentmgr.Mask {
		t.Errorf("opencode env in the snapshot: %v", env)
	}
	last, _ := svc.LastKnown()
	want, _ := json.Marshal(last)
	got, _ := json.Marshal(as)
	if string(got) != string(want) {
		t.Errorf("the snapshot differs from LastKnown:\n%s\n%s", got, want)
	}
}
