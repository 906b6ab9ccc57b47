package remote_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// remoteScript is the permission recording with `pre` assistant messages
// before the tool call, so the connection can be killed mid-stream.
func remoteScript(t *testing.T, dir string, pre int) string {
	b, err := os.ReadFile(agenttest.ClaudeRecording(t, "bidi_perm_allow"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	var out [][]byte
	out = append(out, lines[:3]...)
	for i := 1; i <= pre; i++ {
		out = append(out, fmt.Appendf(nil, `{"type":"assistant","message":{"id":"msg_pre_%04d","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"working, step %d"}],"stop_reason":null,"stop_sequence":null},"parent_tool_use_id":null,"session_id":"63edfe3e-a56c-4b5a-92b6-3cf59226b747"}`, i, i))
	}
	out = append(out, lines[3:]...)
	p := filepath.Join(dir, "script.jsonl")
	if err := os.WriteFile(p, append(bytes.Join(out, []byte("\n")), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// remoteProject makes a repository on the host and adds it as a project
// there, worktrees on.
func remoteProject(t *testing.T, ctx context.Context, db *store.DB, pool *remote.Pool, srv *sshdtest.Server) (string, []string) {
	cfg := filepath.Join(srv.Home, "gitconfig")
	if err := os.WriteFile(cfg, []byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = T\n\temail = t@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + cfg}
	c, _ := pool.Client(sshdtest.Alias)
	repo := filepath.Join(srv.Home, "code", "app")
	for _, argv := range [][]string{{"mkdir", "-p", repo}, {"env", env[0], env[1], "git", "-C", repo, "init", "-q"},
		{"env", env[0], env[1], "git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "init"}} {
		if _, err := c.Output(ctx, argv...); err != nil {
			t.Fatal(err)
		}
	}
	p, err := services.NewHostService(ctx, db, pool, srv.ConfigFile, nil).AddRemoteProject(sshdtest.Alias, repo, "")
	if err != nil {
		t.Fatal(err)
	}
	return p.ID, env
}

// killSSH stops the server's listener (SIGSTOP: the host is unreachable)
// and kills every local ssh process of the pool; it returns the listener.
func killSSH(t *testing.T, srv *sshdtest.Server) int {
	l := srv.ListenerPID()
	if err := syscall.Kill(l, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range sshdtest.LocalProcessesMatching(srv.ControlDir) {
		var pid int
		if _, err := fmt.Sscan(p, &pid); err == nil && pid != os.Getpid() && syscall.Kill(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no ssh process to kill")
	}
	return l
}

func waitTask(t *testing.T, db *store.DB, id, what string, cond func(store.TaskRun) bool) store.TaskRun {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var tr store.TaskRun
	for time.Now().Before(deadline) {
		var err error
		if tr, err = store.LoadTaskRun(context.Background(), db.R, id); err == nil && cond(tr) {
			return tr
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s (task %s %q)", what, tr.Status, tr.StatusReason)
	return tr
}

// agentLines checks that the stored raw frames hold every line the agent
// wrote (its own record) exactly once and in order.
func agentLines(t *testing.T, db *store.DB, taskID, record string) int {
	want, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	wl := bytes.Split(bytes.TrimSpace(want), []byte("\n"))
	set := map[string]bool{}
	for _, l := range wl {
		set[string(l)] = true
	}
	var got [][]byte
	for f, err := range store.RawFrames(context.Background(), db.R, taskID) {
		if err != nil {
			t.Fatal(err)
		}
		if set[string(f.Data)] {
			got = append(got, f.Data)
		}
	}
	if !bytes.Equal(bytes.Join(got, []byte("\n")), bytes.Join(wl, []byte("\n"))) {
		t.Fatalf("stored agent frames (%d) differ from the agent's record (%d lines)", len(got), len(wl))
	}
	return len(wl)
}

// A task of a project on a host, through the orchestrator as the app runs
// it: the agent (the fake claude, found by name in the host's ~/.local/bin)
// runs in the task's worktree there behind a relay; mid-stream the host
// becomes unreachable and every ssh process dies: the task says "host
// unreachable since …", the link comes back and the reason goes; the
// permission is answered, the diff (the host's git) shows the agent's
// file, a follow-up is answered; every line the agent wrote is stored
// exactly once, in order; a Stop asked while the host is unreachable again
// is queued and done on reconnect; nothing is left on either side and the
// secret never reached the host's disk.
func TestOrchestratorRemoteTask(t *testing.T) {
	e := newRemoteEnv(t)
	o := e.orchestrator(t, false)
	defer o.Close(context.Background())
	id := e.startTask(t, o)
	runRemoteTask(t, e.srv, e.db, o, e.gs, id, e.record)
	if hits := grepTree(e.srv.Home, e.secret); len(hits) > 0 {
		t.Fatalf("the secret was written on the host: %v", hits)
	}
}

// At app start the relay of a remote task that was running is adopted:
// the app quits with "keep" while the agent streams; the next app finds
// the relay on the host, continues from the journal (every line stored
// once, in order), shows the permission it asked meanwhile, and the turn
// completes after the answer.
func TestOrchestratorAdoptsRemoteRelay(t *testing.T) {
	e := newRemoteEnv(t)
	e.binary = headlessRelay(t) // the host runs the relay-only build
	ctx := context.Background()
	o1 := e.orchestrator(t, true)
	id := e.startTask(t, o1)
	waitTask(t, e.db, id, "40 frames", func(store.TaskRun) bool {
		n, _ := store.CountRawFrames(ctx, e.db.R, id)
		return n >= 40
	})
	must(t, o1.Close(ctx)) // quit with "keep": the agent goes on on the host
	before, _ := store.CountRawFrames(ctx, e.db.R, id)
	time.Sleep(time.Second)

	o2 := e.orchestrator(t, false)
	defer o2.Close(ctx)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	tr := waitTask(t, e.db, id, "the permission after adoption", func(tr store.TaskRun) bool { return tr.Status == store.StatusWaiting })
	t.Logf("adopted after %d frames: %s %q", before, tr.Status, tr.StatusReason)
	reqs, err := o2.PendingRequests(ctx, id)
	if err != nil || len(reqs) != 1 {
		t.Fatalf("pending = %+v, %v", reqs, err)
	}
	must(t, o2.RespondToPermission(ctx, id, reqs[0].RequestID, orchestrator.PermissionAnswer{Behavior: agent.Allow}))
	waitTask(t, e.db, id, "the turn to complete", func(tr store.TaskRun) bool { return tr.Status == store.StatusCompleted })
	t.Logf("%d agent lines stored exactly once, in order", agentLines(t, e.db, id, e.record))
	must(t, o2.Close(ctx)) // quit with "stop": the agent on the host ends (checked at cleanup)
}

// A host unreachable at app start: the task kept running there is not
// marked interrupted; it shows "host unreachable since …" with the cause in
// words (ssh's own error on the second line) while the app asks the host
// again in the background; when the host is back its relay is adopted,
// the permission the agent asked meanwhile is shown and answered, and
// every line the agent wrote is stored exactly once, in order.
func TestOrchestratorWaitsForUnreachableHostAtStart(t *testing.T) {
	e := newRemoteEnv(t)
	e.retry = orchestrator.HostRetry{Min: 200 * time.Millisecond, Max: time.Second, For: 5 * time.Minute}
	ctx := context.Background()
	o1 := e.orchestrator(t, true)
	id := e.startTask(t, o1)
	waitTask(t, e.db, id, "40 frames", func(store.TaskRun) bool {
		n, _ := store.CountRawFrames(ctx, e.db.R, id)
		return n >= 40
	})
	must(t, o1.Close(ctx)) // quit with "keep": the agent goes on on the host
	l := killSSH(t, e.srv) // and the host goes away

	o2 := e.orchestrator(t, false)
	defer o2.Close(ctx)
	if n, err := o2.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("Recover = %d, %v; want no task interrupted", n, err)
	}
	tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true })
	t.Logf("at start: %s %q", tr.Status, tr.StatusReason)
	// The first attempt may meet the killed master's socket ("connection
	// lost"); the next ones the stopped listener (ssh's banner timeout).
	tr = waitTask(t, e.db, id, "host not reachable", func(tr store.TaskRun) bool {
		words, raw, _ := strings.Cut(tr.StatusReason, "\n")
		return strings.HasPrefix(words, "host unreachable since ") && strings.HasSuffix(words, ": "+remote.CauseNotReachable) && raw != ""
	})
	t.Logf("retrying: %s %q", tr.Status, tr.StatusReason)
	if tr.Status != store.StatusRunning {
		t.Fatalf("while the host is away: %s %q, want running", tr.Status, tr.StatusReason)
	}
	time.Sleep(2 * time.Second) // a few retries while the host is away
	if tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true }); tr.Status != store.StatusRunning {
		t.Fatalf("while the host is away: %s %q", tr.Status, tr.StatusReason)
	}
	must(t, syscall.Kill(l, syscall.SIGCONT))
	tr = waitTask(t, e.db, id, "the permission after adoption", func(tr store.TaskRun) bool { return tr.Status == store.StatusWaiting })
	t.Logf("adopted once the host was back: %s %q", tr.Status, tr.StatusReason)
	reqs, err := o2.PendingRequests(ctx, id)
	if err != nil || len(reqs) != 1 {
		t.Fatalf("pending = %+v, %v", reqs, err)
	}
	must(t, o2.RespondToPermission(ctx, id, reqs[0].RequestID, orchestrator.PermissionAnswer{Behavior: agent.Allow}))
	waitTask(t, e.db, id, "the turn to complete", func(tr store.TaskRun) bool { return tr.Status == store.StatusCompleted })
	t.Logf("%d agent lines stored exactly once, in order", agentLines(t, e.db, id, e.record))
	must(t, o2.Close(ctx))
}

// remoteEnv is a real sshd, a project on it, the fake claude installed
// there, and what the orchestrator needs.
type remoteEnv struct {
	srv            *sshdtest.Server
	pool           *remote.Pool
	db             *store.DB
	gs             *services.GitService
	reg            *agent.Registry
	ws             *workspace.Manager
	projectID      string
	gitEnv         []string // the host's git identity and config (tests)
	record, secret string
	binary         string // deployed instead of the test binary ("": the test binary)
	retry          orchestrator.HostRetry
	stops          bool          // stops asked while unreachable are stored (remote.Tasks.Stops)
	stopTimeout    time.Duration // orchestrator.Options.StopTimeout (0: its default)
}

// headlessRelay builds cmd/jean-claude-relay (no Wails, static) as
// `make relay-bins` does.
func headlessRelay(t *testing.T) string {
	out := filepath.Join(t.TempDir(), "jean-claude-relay")
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, "github.com/jean-claude/jean-claude/cmd/jean-claude-relay")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the headless relay: %v\n%s", err, b)
	}
	return out
}

// newRemoteEnv is newHostEnv with the fake claude on the host.
func newRemoteEnv(t *testing.T) *remoteEnv {
	e := newHostEnv(t)
	srv := e.srv
	// The agent CLI "installed" on the host where the Hosts page puts them;
	// the local path given to the backend does not exist.
	fake := installOnHost(t, srv, agenttest.BuildFakeClaude(t))
	e.reg.Register(claude.New(claude.Options{Binary: "/nowhere/" + fake, GracePeriod: 500 * time.Millisecond,
		WaitDelay: 500 * time.Millisecond, InterruptTimeout: 500 * time.Millisecond,
		Env: []string{"FAKE_CLAUDE_SCRIPT=" + remoteScript(t, srv.Home, 150), "FAKE_CLAUDE_LINE_DELAY=15ms",
			"FAKE_CLAUDE_OUT_LOG=" + e.record, "FAKE_CLAUDE_ARGS_FILE=agent-args.json", "JC_TEST_SECRET=" + e.secret}}))
	return e
}

// installOnHost puts bin in the host's ~/.local/bin, where the Hosts page
// installs agent CLIs; it returns its base name.
func installOnHost(t *testing.T, srv *sshdtest.Server, bin string) string {
	dir := filepath.Join(srv.Home, ".local", "bin")
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.Symlink(bin, filepath.Join(dir, filepath.Base(bin))))
	return filepath.Base(bin)
}

// newHostEnv is a real sshd, a project on it (worktrees on), the agent's
// record and secret, and an empty registry.
func newHostEnv(t *testing.T) *remoteEnv {
	e := &remoteEnv{srv: sshdtest.Start(t)}
	srv := e.srv
	pool, err := remote.NewPool(remote.Options{ConfigFile: srv.ConfigFile, ControlDir: srv.ControlDir, ConnectTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	e.pool = pool
	t.Cleanup(func() {
		pool.Close()
		if left := srv.WaitNoRemoteProcesses(context.Background(), 10*time.Second); len(left) > 0 {
			t.Errorf("remote processes left: %v", left)
		}
		if left := sshdtest.WaitNoLocalProcesses(srv.ControlDir, 5*time.Second); len(left) > 0 {
			t.Errorf("local ssh processes left: %v", left)
		}
	})
	ctx := context.Background()
	if e.db, err = store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.db.Close() })
	e.projectID, e.gitEnv = remoteProject(t, ctx, e.db, pool, srv)
	ws := workspace.New(e.db, nil, nil) // no local git: everything runs on the host
	ws.SetRemote(&remote.ProjectGits{Pool: pool, DB: e.db, Env: e.gitEnv})
	e.gs = services.NewGitService(ctx, ws, nil)
	if _, err := e.gs.SetProjectSettings(e.projectID, services.ProjectGitSettings{WorktreesEnabled: true}); err != nil {
		t.Fatal(err)
	}
	e.ws = ws
	e.record = filepath.Join(srv.Home, "agent-out.jsonl")
	e.secret = fmt.Sprintf("s3cr3t-%d", time.Now().UnixNano())
	e.reg = agent.NewRegistry()
	return e
}

func (e *remoteEnv) orchestrator(t *testing.T, keep bool) *orchestrator.Orchestrator {
	return e.orchestratorOn(t, e.pool, keep)
}

// orchestratorOn is an orchestrator whose ssh connections are pool's (an
// app of its own: closing pool is that app's exit).
func (e *remoteEnv) orchestratorOn(t *testing.T, pool *remote.Pool, keep bool) *orchestrator.Orchestrator {
	hosts := &remote.Tasks{Pool: pool, DB: e.db, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
		Tune: func(s *relay.Spec) { s.IdleStop, s.IdleExit = time.Minute, time.Minute }}
	if e.binary != "" {
		hosts.Binary = func(string, string) (string, error) { return e.binary, nil }
	}
	if e.stops {
		hosts.Stops = remote.StoredStops(e.db)
	}
	o, err := orchestrator.New(orchestrator.Options{DB: e.db, Backends: e.reg, Formats: agent.NewFormats(claude.Format(), codex.AppServerFormat(), acp.Format(), opencode.Format(), gemini.Format()),
		Emitter: orchestrator.EmitterFunc(func(string, any) {}), Workspace: e.ws, Hosts: hosts, KeepOnQuit: keep, HostRetry: e.retry,
		StopTimeout: e.stopTimeout})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func (e *remoteEnv) startTask(t *testing.T, o *orchestrator.Orchestrator) string {
	return e.startTaskWith(t, o, agent.BackendClaudeCode, "touch a file")
}

// startTaskWith starts a task of the remote project with backend b, in Ask.
func (e *remoteEnv) startTaskWith(t *testing.T, o *orchestrator.Orchestrator, b agent.BackendType, prompt string) string {
	ctx := context.Background()
	tk, err := store.CreateTask(ctx, e.db.W, store.NewTask{ProjectID: e.projectID, Name: "remote work", Prompt: prompt,
		AgentBackend: b, InteractionMode: "ask"})
	must(t, err)
	if err := o.Start(ctx, tk.ID); err != nil {
		t.Fatalf("Start: %v\n%s", err, e.srv.Log())
	}
	return tk.ID
}

func runRemoteTask(t *testing.T, srv *sshdtest.Server, db *store.DB, o *orchestrator.Orchestrator, gs *services.GitService, id, record string) {
	ctx := context.Background()
	waitTask(t, db, id, "40 frames", func(store.TaskRun) bool {
		n, _ := store.CountRawFrames(ctx, db.R, id)
		return n >= 40
	})
	l := killSSH(t, srv)
	down := waitTask(t, db, id, "host unreachable", func(tr store.TaskRun) bool {
		return strings.HasPrefix(tr.StatusReason, "host unreachable since ")
	})
	t.Logf("task %s: %q", down.Status, down.StatusReason)
	time.Sleep(time.Second) // the agent goes on while the host is away
	must(t, syscall.Kill(l, syscall.SIGCONT))
	waitTask(t, db, id, "the permission after reconnecting", func(tr store.TaskRun) bool {
		return tr.Status == store.StatusWaiting && tr.StatusReason == ""
	})
	reqs, err := o.PendingRequests(ctx, id)
	if err != nil || len(reqs) != 1 || reqs[0].Request.ToolName != "Bash" {
		t.Fatalf("pending = %+v, %v", reqs, err)
	}
	must(t, o.RespondToPermission(ctx, id, reqs[0].RequestID, orchestrator.PermissionAnswer{Behavior: agent.Allow}))
	waitTask(t, db, id, "the turn to complete", func(tr store.TaskRun) bool { return tr.Status == store.StatusCompleted })
	d, err := gs.Diff(id)
	if err != nil || !d.Available || len(d.Files) != 1 || d.Files[0].Path != "agent-args.json" {
		t.Fatalf("diff = %+v, %v", d, err)
	}
	must(t, o.SendMessage(ctx, id, "and one more"))
	waitTask(t, db, id, "the follow-up answered", func(tr store.TaskRun) bool {
		var n int
		_ = db.R.QueryRow(`SELECT COUNT(*) FROM agent_messages WHERE taskId = ? AND normalizedData LIKE '%You said: and one more%'`, id).Scan(&n)
		return tr.Status == store.StatusCompleted && n > 0
	})
	n := agentLines(t, db, id, record)
	t.Logf("%d agent lines stored exactly once, in order", n)

	// Stop while the host is unreachable: queued, done on reconnect.
	l = killSSH(t, srv)
	waitTask(t, db, id, "host unreachable again", func(tr store.TaskRun) bool {
		return strings.HasPrefix(tr.StatusReason, "host unreachable since ")
	})
	start := time.Now()
	must(t, o.Stop(ctx, id))
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("Stop while unreachable took %s", el)
	}
	tr := waitTask(t, db, id, "the queued stop shown", func(tr store.TaskRun) bool {
		return strings.Contains(tr.StatusReason, orchestrator.ReasonStopQueued)
	})
	t.Logf("after Stop: %s %q", tr.Status, tr.StatusReason)
	must(t, syscall.Kill(l, syscall.SIGCONT))
	// Stopped while idle: the task keeps how its last turn ended, as a local one.
	tr = waitTask(t, db, id, "the agent stopped", func(tr store.TaskRun) bool {
		return tr.Status == store.StatusCompleted && tr.StatusReason == ""
	})
	t.Logf("stopped: %s %q", tr.Status, tr.StatusReason)
	waitTask(t, db, id, "the relay's files gone", func(store.TaskRun) bool {
		m, _ := filepath.Glob(filepath.Join(srv.Home, ".cache", "jean-claude", "relays", "*"))
		return len(m) == 0
	})
	agentLines(t, db, id, record)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// grepTree lists the files under dir that contain s.
func grepTree(dir, s string) []string {
	var hits []string
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
				hits = append(hits, p)
			}
		}
		return nil
	})
	return hits
}

// Quit with "keep" once a remote task's turn is over (its agent waits for
// input): the next app would not adopt it (only tasks at work are adopted
// on hosts), so nothing is kept on the host for it — no relay waiting for
// an app until its idle stop (checked at cleanup: no remote process left);
// the next app's follow-up resumes the session there.
func TestOrchestratorQuitKeepIdleRemoteLeavesNothing(t *testing.T) {
	e := newRemoteEnv(t)
	e.binary = headlessRelay(t)
	ctx := context.Background()
	o1 := e.orchestrator(t, true)
	id := e.startTask(t, o1)
	waitTask(t, e.db, id, "the permission", func(tr store.TaskRun) bool { return tr.Status == store.StatusWaiting })
	reqs, err := o1.PendingRequests(ctx, id)
	if err != nil || len(reqs) != 1 {
		t.Fatalf("pending = %+v, %v", reqs, err)
	}
	must(t, o1.RespondToPermission(ctx, id, reqs[0].RequestID, orchestrator.PermissionAnswer{Behavior: agent.Allow}))
	waitTask(t, e.db, id, "the turn to complete", func(tr store.TaskRun) bool { return tr.Status == store.StatusCompleted })
	must(t, o1.Close(ctx)) // quit with "keep" while the task is done
	if left := e.srv.WaitNoRemoteProcesses(ctx, 10*time.Second); len(left) > 0 {
		t.Fatalf("kept on the host for a task whose turn was over: %v", left)
	}
	if tr, _ := store.LoadTaskRun(ctx, e.db.R, id); tr.Status != store.StatusCompleted {
		t.Fatalf("after quit-keep: %s %q", tr.Status, tr.StatusReason)
	}
	o2 := e.orchestrator(t, false)
	defer o2.Close(ctx)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	must(t, o2.SendMessage(ctx, id, "and one more"))
	waitTask(t, e.db, id, "the follow-up's turn", func(tr store.TaskRun) bool {
		if tr.Status == store.StatusWaiting { // the script's turn asks again
			if reqs, _ := o2.PendingRequests(ctx, id); len(reqs) == 1 {
				_ = o2.RespondToPermission(ctx, id, reqs[0].RequestID, orchestrator.PermissionAnswer{Behavior: agent.Allow})
			}
		}
		var n int
		_ = e.db.R.QueryRow(`SELECT COUNT(*) FROM agent_messages WHERE taskId = ? AND role = 'user' AND normalizedData LIKE '%and one more%'`, id).Scan(&n)
		return n > 0 && tr.Status == store.StatusCompleted
	})
}
