package remote_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest/fakemodel"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/store"
)

// The real `opencode serve` (JC_REALCLI_BIN) on the host runs a slow turn
// against the repository's fake model server (its provider in the app's
// generated config, which reaches the host by value); the app quits with
// "keep" mid-turn; the turn goes on there; the next app adopts the same
// server (same process), the turn's end is stored, and a follow-up is
// answered on it; quit "stop" leaves nothing on the host.
func TestRealOpenCodeKeptOnHost(t *testing.T) {
	dir := realCLIBin(t)
	answers := []string{"tick 30. ", "You said: Again."} // (an untagged message is echoed)
	model, err := fakemodel.Start(fakemodel.Options{Scripts: map[string]fakemodel.Script{"keep": {
		{Text: "Counting: ", Slow: 250 * time.Millisecond, SlowFor: 10 * time.Second}}}})
	must(t, err)
	t.Cleanup(func() { model.Close() })
	e := newHostEnv(t)
	installOnHost(t, e.srv, filepath.Join(dir, "opencode"))
	cfg, err := agentmgr.WriteOpenCodeConfig(t.TempDir(), "remote", agentmgr.OpenCodeConfig{Mode: agent.ModeAsk,
		Provider: &agentmgr.OpenAICompatible{ID: "fake", Name: "Fake Model Server", BaseURL: model.OpenAIBaseURL(), APIKey: e.secret,
			Models: []string{"fake-basic"}}, Model: "fake/fake-basic"})
	must(t, err)
	records := filepath.Join(t.TempDir(), "opencode-hosts")
	ctx := context.Background()
	pool1 := appPool(t, e, "a1")
	// mk is one app: its OpenCode backend (e.reg) and orchestrator on pool.
	mk := func(pool *remote.Pool, keep bool) (*orchestrator.Orchestrator, *agent.Registry) {
		e.reg = agent.NewRegistry()
		e.reg.Register(opencode.New(opencode.Options{Binary: "/nowhere/opencode", HealthTimeout: 3 * time.Minute, HostServers: records,
			Env: map[string]string{"OPENCODE_CONFIG": cfg, "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1",
				"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
				"OPENCODE_DISABLE_CLAUDE_CODE": "1", "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1"}}))
		return e.orchestratorOn(t, pool, keep), e.reg
	}
	o1, reg1 := mk(pool1, true)
	t.Cleanup(func() { _ = o1.Close(ctx); _ = reg1.Dispose(ctx) })
	tk, err := store.CreateTask(ctx, e.db.W, store.NewTask{ProjectID: e.projectID, Name: "real", Prompt: "[scenario:keep] Count slowly.",
		AgentBackend: agent.BackendOpenCode, InteractionMode: "ask", Model: "fake/fake-basic"})
	must(t, err)
	must(t, o1.Start(ctx, tk.ID))
	id := tk.ID
	stored := func(answer string) bool {
		var n int
		must(t, e.db.R.QueryRow(`SELECT COUNT(*) FROM agent_messages WHERE taskId = ? AND normalizedData LIKE ?`, id, "%"+answer+"%").Scan(&n))
		return n > 0
	}
	waitTask(t, e.db, id, "the turn under way", func(store.TaskRun) bool { return stored("tick 4.") })
	servers := func() []string {
		var out []string
		for _, p := range e.srv.RemoteCommands() {
			if strings.Contains(p, " serve --hostname=127.0.0.1") {
				out = append(out, p)
			}
		}
		return out
	}
	before := servers()
	must(t, o1.Close(ctx))
	must(t, reg1.Dispose(ctx))
	pool1.Close()
	time.Sleep(500 * time.Millisecond)
	if now := servers(); len(before) != 1 || len(now) != 1 || now[0] != before[0] {
		t.Fatalf("servers before the quit %v, after %v", before, now)
	}
	if tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true }); tr.StatusReason != orchestrator.ReasonKept || stored(answers[0]) {
		t.Fatalf("after quit-keep: %s %q (the turn's end stored already: %v)", tr.Status, tr.StatusReason, stored(answers[0]))
	}

	o2, reg2 := mk(e.pool, false)
	t.Cleanup(func() { _ = o2.Close(ctx); _ = reg2.Dispose(ctx) })
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	tr := waitTask(t, e.db, id, "the turn's end, streamed while the app was away or after", func(tr store.TaskRun) bool {
		return stored(answers[0]) && tr.Status == store.StatusCompleted
	})
	t.Logf("after restart: %s %q", tr.Status, tr.StatusReason)
	must(t, o2.SendMessage(ctx, id, "Again."))
	deadline := time.Now().Add(3 * time.Minute)
	for !stored(answers[1]) {
		if time.Now().After(deadline) {
			tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true })
			t.Fatalf("no answer to the follow-up: %s %q\n%s", tr.Status, tr.StatusReason, storedFrames(t, e, id))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if now := servers(); len(now) != 1 || now[0] != before[0] {
		t.Fatalf("servers after the follow-up %v, want the adopted %v", now, before)
	}
	must(t, o2.Close(ctx))
	must(t, reg2.Dispose(ctx))
	if left := e.srv.WaitNoRemoteProcesses(ctx, 20*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host: %v", left)
	}
	if recs, _ := filepath.Glob(filepath.Join(records, "*")); len(recs) != 0 {
		t.Fatalf("records left: %v", recs)
	}
	if hits := grepTree(e.srv.Home, e.secret); len(hits) > 0 {
		t.Fatalf("the provider's key was written on the host: %v", hits)
	}
}
