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

// An ACP agent's relay on a host is adopted at app start: the app quits
// with "keep" while the agent works; the agent asks its permission while
// the app is away; the next app finds the relay on the host (its backend
// started again on the host: no local look-up), shows the permission,
// answers it by hand, and the agent writes its file there; every line is
// stored once, in order.
func TestOrchestratorAdoptsRemoteACPRelay(t *testing.T) {
	e := newHostEnv(t)
	fake := installOnHost(t, e.srv, buildFake(t, "backend/agent/acp/testdata/fakeagent", "fakeagent"))
	b, err := acp.New(acp.Config{Name: "acp.test.fake", DisplayName: "Fake ACP", Command: "/nowhere/" + fake,
		Env: map[string]string{"FAKEAGENT_OUT_LOG": e.record, "FAKEAGENT_DELAY": "2s", "JC_TEST_SECRET": e.secret}})
	must(t, err)
	e.reg.Register(b)
	ctx := context.Background()
	o1 := e.orchestrator(t, true)
	id := e.startTaskWith(t, o1, "acp.test.fake", "permission please")
	waitTask(t, e.db, id, "the agent at work", func(store.TaskRun) bool {
		return strings.Contains(storedFrames(t, e, id), "Writing hello.txt.")
	})
	must(t, o1.Close(ctx)) // quit with "keep": the agent goes on on the host
	// Kept, not failed: a detached link is not the agent's end (before,
	// the ACP and Codex sessions took it for one and the task errored, so
	// the next start did not adopt it).
	if tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true }); tr.Status != store.StatusInterrupted || tr.StatusReason != orchestrator.ReasonKept {
		t.Fatalf("after quit with keep: %s %q", tr.Status, tr.StatusReason)
	}
	o2 := e.orchestrator(t, false)
	defer o2.Close(ctx)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	answer(t, e, o2, id, "", agent.Allow)
	tr := waitTask(t, e.db, id, "the turn to complete", func(tr store.TaskRun) bool { return tr.Status == store.StatusCompleted })
	t.Logf("adopted, answered: %s %q", tr.Status, tr.StatusReason)
	if !strings.Contains(storedFrames(t, e, id), "Done (once).") {
		t.Fatal("the agent did not finish after the answer")
	}
	finishRemote(t, e, o2, id, "hello.txt")
}

// Codex's app-server on a host is adopted at app start as well: the app
// quits with "keep" mid-turn (the task shows it kept running), the first
// approval is asked while the app is away; the next app adopts the relay
// (no handshake again), the approvals are answered, the fake writes its
// file on the host; every line stored once, in order.
func TestOrchestratorAdoptsRemoteCodexRelay(t *testing.T) {
	e := newHostEnv(t)
	transcript, err := os.ReadFile("../agent/codex/testdata/fakeappserver/perm.transcript.jsonl")
	must(t, err)
	script := filepath.Join(e.srv.Home, "transcript.jsonl")
	must(t, os.WriteFile(script, transcript, 0o644))
	fake := installOnHost(t, e.srv, buildFake(t, "backend/agent/codex/testdata/fakeappserver", "codex"))
	e.reg.Register(withEnv{codex.New(codex.Options{Binary: "/nowhere/" + fake}), map[string]string{
		"FAKE_TRANSCRIPT": script, "FAKE_OUT_LOG": e.record, "FAKE_WRITE_ON_ACCEPT": "hello.txt",
		"FAKE_LINE_DELAY": "100ms", "JC_TEST_SECRET": e.secret}})
	ctx := context.Background()
	o1 := e.orchestrator(t, true)
	id := e.startTaskWith(t, o1, agent.BackendCodex, "Create hello.txt, then make a directory.")
	waitTask(t, e.db, id, "the thread started", func(store.TaskRun) bool {
		return strings.Contains(storedFrames(t, e, id), `"method":"thread/started"`)
	})
	must(t, o1.Close(ctx)) // quit with "keep"
	if tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true }); tr.Status != store.StatusInterrupted || tr.StatusReason != orchestrator.ReasonKept {
		t.Fatalf("after quit with keep: %s %q", tr.Status, tr.StatusReason)
	}
	o2 := e.orchestrator(t, false)
	defer o2.Close(ctx)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	first := answer(t, e, o2, id, "", agent.Allow)
	answer(t, e, o2, id, first, agent.Deny)
	tr := waitTask(t, e.db, id, "the turn to complete", func(tr store.TaskRun) bool { return tr.Status == store.StatusCompleted })
	t.Logf("adopted, answered: %s %q", tr.Status, tr.StatusReason)
	if n := strings.Count(storedFrames(t, e, id), `"method":"initialize"`); n != 1 {
		t.Errorf("initialize sent %d times, want once", n)
	}
	finishRemote(t, e, o2, id, "hello.txt")
}
