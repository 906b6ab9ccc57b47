package remote_test

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// buildFake builds a test agent of the agent packages (pkg, relative to
// the module root) as name.
func buildFake(t *testing.T, pkg, name string) string {
	out := filepath.Join(t.TempDir(), name)
	cmd := exec.Command("go", "build", "-o", out, "./"+pkg)
	cmd.Dir = "../.."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// withEnv adds env to every session's config, as the agent's settings do
// (agentmgr.Apply).
type withEnv struct {
	agent.Backend
	env map[string]string
}

func (w withEnv) Start(ctx context.Context, cfg agent.Config, prompt string) (agent.Session, error) {
	env := maps.Clone(w.env)
	maps.Copy(env, cfg.Env)
	cfg.Env = env
	return w.Backend.Start(ctx, cfg, prompt)
}

// answer waits for a permission request other than after's and answers it.
func answer(t *testing.T, e *remoteEnv, o *orchestrator.Orchestrator, id, after string, b agent.Behavior) string {
	t.Helper()
	ctx := context.Background()
	var req string
	waitTask(t, e.db, id, "a permission request", func(tr store.TaskRun) bool {
		reqs, err := o.PendingRequests(ctx, id)
		if tr.Status != store.StatusWaiting || err != nil || len(reqs) != 1 || reqs[0].RequestID == after {
			return false
		}
		req = reqs[0].RequestID
		return true
	})
	must(t, o.RespondToPermission(ctx, id, req, orchestrator.PermissionAnswer{Behavior: b}))
	return req
}

// finishRemote checks the host's git sees file, stops the task, waits for
// the relay's files to go and checks every line the agent wrote is stored
// exactly once, that no process is left on the host (the agent and the
// child it started) and that the secret is nowhere on the host's disk.
func finishRemote(t *testing.T, e *remoteEnv, o *orchestrator.Orchestrator, id, file string) {
	ctx := context.Background()
	d, err := e.gs.Diff(id)
	if err != nil || !d.Available || len(d.Files) != 1 || d.Files[0].Path != file {
		t.Fatalf("diff = %+v, %v", d, err)
	}
	must(t, o.Stop(ctx, id))
	waitTask(t, e.db, id, "the relay's files gone", func(store.TaskRun) bool {
		m, _ := filepath.Glob(filepath.Join(e.srv.Home, ".cache", "jean-claude", "relays", "*"))
		return len(m) == 0
	})
	if left := e.srv.WaitNoRemoteProcesses(ctx, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host after Stop: %v", left)
	}
	t.Logf("%d agent lines stored exactly once, in order", agentLines(t, e.db, id, e.record))
	if hits := grepTree(e.srv.Home, e.secret); len(hits) > 0 {
		t.Fatalf("the secret was written on the host: %v", hits)
	}
}

// storedFrames is every raw frame of the task, joined by newlines.
func storedFrames(t *testing.T, e *remoteEnv, id string) string {
	var sb strings.Builder
	for f, err := range store.RawFrames(context.Background(), e.db.R, id) {
		must(t, err)
		sb.Write(f.Data)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// A remote project's task with Codex's app-server: the fake app-server
// (a recorded Codex session with two approvals) is found by name in the
// host's ~/.local/bin (the backend's binary does not exist here) and runs
// in the task's worktree there behind a relay; the first approval is
// allowed (the fake then writes hello.txt in its folder), the second
// denied; the diff by the host's git shows the file; Stop; every line the
// agent wrote is stored once, in order; nothing is left on either side.
func TestOrchestratorRemoteCodexTask(t *testing.T) {
	e := newHostEnv(t)
	transcript, err := os.ReadFile("../agent/codex/testdata/fakeappserver/perm.transcript.jsonl")
	must(t, err)
	script := filepath.Join(e.srv.Home, "transcript.jsonl")
	must(t, os.WriteFile(script, transcript, 0o644))
	fake := installOnHost(t, e.srv, buildFake(t, "backend/agent/codex/testdata/fakeappserver", "codex"))
	e.reg.Register(withEnv{codex.New(codex.Options{Binary: "/nowhere/" + fake}), map[string]string{
		"FAKE_TRANSCRIPT": script, "FAKE_OUT_LOG": e.record, "FAKE_WRITE_ON_ACCEPT": "hello.txt", "JC_TEST_SECRET": e.secret}})
	o := e.orchestrator(t, false)
	defer o.Close(context.Background())
	id := e.startTaskWith(t, o, agent.BackendCodex, "Create hello.txt, then make a directory.")
	first := answer(t, e, o, id, "", agent.Allow)
	answer(t, e, o, id, first, agent.Deny)
	tr := waitTask(t, e.db, id, "the turn to complete", func(tr store.TaskRun) bool { return tr.Status == store.StatusCompleted })
	t.Logf("after the approvals: %s %q", tr.Status, tr.StatusReason)
	finishRemote(t, e, o, id, "hello.txt")
}

// A remote project's task with an ACP agent: the acp package's fake agent
// is found by name in the host's ~/.local/bin and runs in the task's
// worktree there; the client offers it no fs (its folder is on the host),
// so it writes hello.txt itself once the permission (asked of the app) is
// allowed, and its read of /etc/passwd through the client is refused
// without this machine's disk being read. The diff by the host's git
// shows the file; Stop; every line stored once; nothing left.
func TestOrchestratorRemoteACPTask(t *testing.T) {
	e := newHostEnv(t)
	fake := installOnHost(t, e.srv, buildFake(t, "backend/agent/acp/testdata/fakeagent", "fakeagent"))
	b, err := acp.New(acp.Config{Name: "acp.test.fake", DisplayName: "Fake ACP", Command: "/nowhere/" + fake,
		Env: map[string]string{"FAKEAGENT_OUT_LOG": e.record, "JC_TEST_SECRET": e.secret}})
	must(t, err)
	e.reg.Register(b)
	o := e.orchestrator(t, false)
	defer o.Close(context.Background())
	id := e.startTaskWith(t, o, "acp.test.fake", "permission please")
	answer(t, e, o, id, "", agent.Allow)
	tr := waitTask(t, e.db, id, "the turn to complete", func(tr store.TaskRun) bool { return tr.Status == store.StatusCompleted })
	t.Logf("after the permission: %s %q", tr.Status, tr.StatusReason)
	frames := storedFrames(t, e, id)
	for _, want := range []string{`"fs":{}`, `Done (once).`, acp.ErrFilesOnHost.Error()} {
		if !strings.Contains(frames, want) {
			t.Errorf("no stored frame has %q", want)
		}
	}
	for _, never := range []string{`"method":"fs/write_text_file"`, "LEAK", "root:"} {
		if strings.Contains(frames, never) {
			t.Errorf("a stored frame has %q", never)
		}
	}
	finishRemote(t, e, o, id, "hello.txt")
}
