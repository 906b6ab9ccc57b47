package workspace_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/agents"
	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
	"github.com/jean-claude/jean-claude/backend/workspace/workspacetest"
	"github.com/jean-claude/jean-claude/backend/wtsetup"
)

// startSpy is a backend that records where it was started and refuses
// to run (the tests only care whether the agent was started).
type startSpy struct {
	mu   sync.Mutex
	cwds []string
}

var errSpy = errors.New("spy: not a real agent")

func (s *startSpy) Info() agent.Info { return agent.Info{Name: agent.BackendClaudeCode} }
func (s *startSpy) Start(_ context.Context, cfg agent.Config, _ string) (agent.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cwds = append(s.cwds, cfg.Cwd)
	return nil, errSpy
}
func (s *startSpy) Dispose(context.Context) error { return nil }
func (s *startSpy) started() int                  { s.mu.Lock(); defer s.mu.Unlock(); return len(s.cwds) }

type setupFixture struct {
	*gitFixture
	ws  *workspace.Manager
	o   *orchestrator.Orchestrator
	spy *startSpy
}

func newSetupFixture(t *testing.T) *setupFixture {
	f := newGitFixture(t)
	ws := workspace.New(f.DB, f.G, nil)
	reg := agent.NewRegistry()
	spy := &startSpy{}
	reg.Register(spy)
	o, err := orchestrator.New(orchestrator.Options{DB: f.DB, Backends: reg, Formats: agents.Formats(),
		Emitter: orchestrator.EmitterFunc(func(string, any) {}), Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	ws.SetSetupSink(func(ctx context.Context, id string) (workspace.FrameWriter, error) {
		return o.FrameSink(ctx, id, wtsetup.Format())
	})
	// An ignored .env at the top and in a subfolder, as real projects have.
	f.Write(f.Repo, ".gitignore", ".env*\n")
	f.Git(f.Repo, "add", ".gitignore")
	f.Git(f.Repo, "commit", "-q", "-m", "ignore")
	f.Write(f.Repo, ".env", "TOKEN=1\n")
	if err := os.MkdirAll(filepath.Join(f.Repo, "api"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.Write(filepath.Join(f.Repo, "api"), ".env.local", "PORT=2\n")
	return &setupFixture{gitFixture: f, ws: ws, o: o, spy: spy}
}

func (f *setupFixture) settings(cmd string, required bool) {
	f.T.Helper()
	_, err := f.ws.SetSetupSettings(f.T.Context(), f.Project.ID, workspace.SetupSettings{
		CopyGlobs: ".env*\n**/.env.local", SetupCommand: cmd, SetupRequired: required})
	if err != nil {
		f.T.Fatal(err)
	}
}

// setupMessage returns the task's stored setup message.
func (f *setupFixture) setupMessage(id string) agent.Message {
	f.T.Helper()
	msgs, err := store.Messages(f.T.Context(), f.DB.R, id)
	if err != nil {
		f.T.Fatal(err)
	}
	for _, m := range msgs {
		if len(m.Parts) > 0 && m.Parts[0].ToolName == wtsetup.ToolName {
			return m
		}
	}
	f.T.Fatalf("no setup message in %+v", msgs)
	return agent.Message{}
}

func TestSetupFailureBlocksTheAgentAndKeepsThePrompt(t *testing.T) {
	f := newSetupFixture(t)
	f.settings(`sh -c 'echo installing; echo broken >&2; exit 7'`, true)
	id := f.Task("needs setup")
	err := f.o.Start(t.Context(), id)
	if !errors.Is(err, workspace.ErrSetupFailed) {
		t.Fatalf("start: %v", err)
	}
	if f.spy.started() != 0 {
		t.Fatal("the agent started after a failed required setup")
	}
	tr, _ := store.LoadTaskRun(t.Context(), f.DB.R, id)
	if tr.Status != store.StatusErrored || !strings.Contains(tr.StatusReason, "worktree setup failed (exit code 7)") {
		t.Fatalf("task %s: %q", tr.Status, tr.StatusReason)
	}
	// The error card offers Retry, not the agent's settings: the agent is not at fault.
	if p := services.TaskViewOf(tr).(services.Task).Problem; p == nil || p.Kind != agentmgr.ProblemSetupFailed ||
		p.Action != agentmgr.ActionRetry || !strings.HasPrefix(p.Message, "Worktree setup failed (exit code 7)") {
		t.Fatalf("problem %+v", p)
	}
	m := f.setupMessage(id)
	out := m.Parts[1].TextContent()
	if m.Parts[0].State != agent.ToolError || !m.Parts[1].IsError ||
		!strings.Contains(out, "installing") || !strings.Contains(out, "broken") || !strings.Contains(out, "the agent was not started") {
		t.Fatalf("setup message %+v: %q", m.Parts[0], out)
	}
	if !strings.Contains(out, "copied 2 file(s): .env, api/.env.local") {
		t.Fatalf("copy not reported: %q", out)
	}
	// Raw first: the frames are stored in the setup format.
	n := 0
	for fr, err := range store.RawFrames(t.Context(), f.DB.R, id) {
		if err != nil {
			t.Fatal(err)
		}
		if fr.Format == wtsetup.FormatName {
			n++
		}
	}
	if n < 3 {
		t.Fatalf("%d raw setup frames", n)
	}
	msgs, _ := store.Messages(t.Context(), f.DB.R, id)
	kept := false
	for _, m := range msgs {
		if m.Role == agent.RoleUser && len(m.Parts) > 0 && m.Parts[0].Text == "p" {
			kept = true
		}
	}
	if !kept {
		t.Fatalf("the prompt was lost: %+v", msgs)
	}
	info, _ := f.ws.Info(t.Context(), id)
	if b, err := os.ReadFile(filepath.Join(info.WorktreePath, "api", ".env.local")); err != nil || string(b) != "PORT=2\n" {
		t.Fatalf("nested ignored file: %q %v", b, err)
	}

	// Fixed: Retry runs the setup again, then the agent.
	f.settings("true", true)
	_ = f.o.Resume(t.Context(), id)
	if f.spy.started() != 1 {
		t.Fatal("the agent did not start after the setup succeeded")
	}
	st, _ := store.TaskSetupStatus(t.Context(), f.DB.R, id)
	if st != store.SetupOK {
		t.Fatalf("setup status %q", st)
	}
}

func TestSetupFailureNotRequiredStillStartsTheAgent(t *testing.T) {
	f := newSetupFixture(t)
	f.settings("false", false)
	id := f.Task("optional setup")
	if err := f.o.Start(t.Context(), id); errors.Is(err, workspace.ErrSetupFailed) {
		t.Fatalf("start: %v", err)
	}
	if f.spy.started() != 1 {
		t.Fatal("the agent did not start")
	}
	if m := f.setupMessage(id); m.Parts[0].State != agent.ToolError {
		t.Fatalf("failure not shown: %+v", m.Parts)
	}
}

func TestSetupSettingsValidateAndRoundTrip(t *testing.T) {
	f := newSetupFixture(t)
	ctx := t.Context()
	if _, err := f.ws.SetSetupSettings(ctx, f.Project.ID, workspace.SetupSettings{CopyGlobs: "../up"}); !errors.Is(err, inputerr.ErrInvalid) {
		t.Fatalf("escaping glob: %v", err)
	}
	if _, err := f.ws.SetSetupSettings(ctx, f.Project.ID, workspace.SetupSettings{SetupCommand: "echo 'open"}); !errors.Is(err, inputerr.ErrInvalid) {
		t.Fatalf("bad command: %v", err)
	}
	got, err := f.ws.SetSetupSettings(ctx, f.Project.ID, workspace.SetupSettings{CopyGlobs: ".env*\r\n", SetupCommand: "npm ci && npm run build", SetupRequired: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.CopyGlobs != ".env*" || !got.SetupUsesShell || !got.SetupRequired {
		t.Fatalf("%+v", got)
	}
	got, _ = f.ws.SetSetupSettings(ctx, f.Project.ID, workspace.SetupSettings{})
	if got.CopyGlobs != "" || got.SetupCommand != "" || got.SetupRequired {
		t.Fatalf("cleared %+v", got)
	}
}

// Stop while the worktree's setup runs: the task shows running meanwhile
// (so the window offers Stop); Stop kills the setup's whole process group,
// the agent does not start, the task shows stopped (its prompt kept), the
// setup row says it was cancelled and how long it ran, and the setup runs
// again at the next start.
func TestSetupCanBeStopped(t *testing.T) {
	f := newSetupFixture(t)
	dir := t.TempDir()
	f.settings(`sh -c 'sleep 300 & echo $! > "$0/job"; echo $$ > "$0/pid"; wait' `+dir, true)
	id := f.Task("slow setup")
	started := make(chan error, 1)
	go func() { started <- f.o.Start(context.Background(), id) }()
	var pids []int
	workspacetest.Eventually(t, "the setup's processes", func() bool {
		pids = pids[:0]
		for _, name := range []string{"pid", "job"} {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				pids = append(pids, n)
			}
		}
		return len(pids) == 2
	})
	tr, _ := store.LoadTaskRun(t.Context(), f.DB.R, id)
	if tr.Status != store.StatusRunning || tr.StatusReason != orchestrator.ReasonSettingUp {
		t.Fatalf("while setting up: %s %q", tr.Status, tr.StatusReason)
	}
	time.Sleep(300 * time.Millisecond)
	if err := f.o.Stop(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-started:
		if err != nil {
			t.Fatalf("Start of a stopped task: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Start still runs after Stop")
	}
	for _, pid := range pids {
		workspacetest.Eventually(t, "the setup's process group killed", func() bool { return !proc.Alive(pid) })
	}
	tr, _ = store.LoadTaskRun(t.Context(), f.DB.R, id)
	if tr.Status != store.StatusInterrupted || tr.StatusReason != orchestrator.ReasonStopped {
		t.Fatalf("after Stop: %s %q", tr.Status, tr.StatusReason)
	}
	if f.spy.started() != 0 {
		t.Fatal("the agent started after Stop")
	}
	m := f.setupMessage(id)
	if m.Parts[0].State != agent.ToolCancelled || m.DurationMs < 300 {
		t.Fatalf("setup row: %s after %d ms", m.Parts[0].State, m.DurationMs)
	}
	if st, _ := store.TaskSetupStatus(t.Context(), f.DB.R, id); st != store.SetupFailed {
		t.Fatalf("setup status %q, want failed (run again next start)", st)
	}
	msgs, _ := store.Messages(t.Context(), f.DB.R, id)
	if last := msgs[len(msgs)-1]; last.Role != agent.RoleUser || last.Parts[0].Text != "p" {
		t.Fatalf("the prompt was not kept: %+v", last)
	}
	f.settings("true", true)
	if err := f.o.Resume(t.Context(), id); err == nil || f.spy.started() != 1 {
		t.Fatalf("Resume after a stopped setup: %v, %d agents started", err, f.spy.started())
	}
}

// A setup that ran carries its duration (the tool row showed "0ms").
func TestSetupMessageHasItsDuration(t *testing.T) {
	f := newSetupFixture(t)
	f.settings("sleep 0.3", false)
	id := f.Task("timed setup")
	_ = f.o.Start(t.Context(), id)
	if m := f.setupMessage(id); m.Parts[0].State != agent.ToolCompleted || m.DurationMs < 300 || m.DurationMs > 60_000 {
		t.Fatalf("setup row: %s after %d ms", m.Parts[0].State, m.DurationMs)
	}
}
