package remote_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
	"github.com/jean-claude/jean-claude/backend/wtsetup"
)

// The app's resolver runs a remote project's setup on its host.
var _ workspace.RemoteSetup = (*remote.ProjectGits)(nil)

// frames keeps a setup's raw frames (workspace.FrameWriter).
type frames struct {
	mu  sync.Mutex
	got []wtsetup.Frame
}

func (f *frames) Write(_ context.Context, b []byte) error {
	var fr wtsetup.Frame
	if err := json.Unmarshal(b, &fr); err != nil {
		return err
	}
	f.mu.Lock()
	f.got = append(f.got, fr)
	f.mu.Unlock()
	return nil
}

// A remote project's worktree setup runs on its host: the copy globs copy
// the project's untracked files into the new worktree there (a symbolic
// link skipped, not followed), and the setup command (shell syntax: the
// host's /bin/sh) runs in the worktree with the task's variables and the
// host user's environment (its HOME, not this process's), its output and
// stderr streamed into the task's frames.
func TestRemoteWorktreeSetup(t *testing.T) {
	e := newHostEnv(t)
	ctx := context.Background()
	repo := filepath.Join(e.srv.Home, "code", "app")
	must(t, os.WriteFile(filepath.Join(repo, ".env"), []byte("KEY=1\n"), 0o600))
	must(t, os.MkdirAll(filepath.Join(repo, "config", "dev"), 0o755))
	must(t, os.WriteFile(filepath.Join(repo, "config", "dev", "db.local"), []byte("db\n"), 0o644))
	must(t, os.Symlink("/etc/passwd", filepath.Join(repo, ".env.link")))
	hostile := "a b;$(touch PWNED)`touch PWNED2`'.local" // a name is an argument, never program text
	must(t, os.WriteFile(filepath.Join(repo, "config", "dev", hostile), []byte("x\n"), 0o644))
	_, err := e.ws.SetSetupSettings(ctx, e.projectID, workspace.SetupSettings{CopyGlobs: ".env*\nconfig/**/*.local",
		SetupCommand: `echo "task=$JEAN_CLAUDE_TASK_ID home=$HOME" && pwd && echo oops >&2 && cat .env > setup-ran.txt`, SetupRequired: true})
	must(t, err)
	out := &frames{}
	e.ws.SetSetupSink(func(context.Context, string) (workspace.FrameWriter, error) { return out, nil })
	tk, err := store.CreateTask(ctx, e.db.W, store.NewTask{ProjectID: e.projectID, Name: "setup", Prompt: "p", AgentBackend: agent.BackendClaudeCode})
	must(t, err)
	tr, err := store.LoadTaskRun(ctx, e.db.R, tk.ID)
	must(t, err)
	cwd, err := e.ws.Cwd(ctx, tr)
	if err != nil {
		t.Fatalf("Cwd: %v (frames %+v)", err, out.got)
	}
	var text string
	var start, end *wtsetup.Frame
	for i, f := range out.got {
		switch f.Type {
		case "start":
			start = &out.got[i]
		case "output":
			text += f.Data
		case "end":
			end = &out.got[i]
		}
	}
	if start == nil || end == nil || !end.Result.OK() {
		t.Fatalf("frames = %+v", out.got)
	}
	if !slices.Equal(start.Copy.Copied, []string{".env", "config/dev/" + hostile, "config/dev/db.local"}) || !slices.Equal(start.Copy.Skipped, []string{".env.link (symbolic link, not followed)"}) {
		t.Fatalf("copy = %+v", start.Copy)
	}
	t.Logf("copied %v, skipped %v; output %q", start.Copy.Copied, start.Copy.Skipped, text)
	for _, want := range []string{"task=" + tk.ID + " home=" + e.srv.Home + "\n", cwd + "\n", "oops\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("output %q lacks %q", text, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "setup-ran.txt")); err != nil || string(b) != "KEY=1\n" {
		t.Fatalf("setup-ran.txt = %q, %v", b, err)
	}
	for _, dir := range []string{e.srv.Home, repo, cwd, filepath.Join(cwd, "config", "dev")} {
		for _, n := range []string{"PWNED", "PWNED2"} {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				t.Fatalf("a file name ran as a command: %s in %s", n, dir)
			}
		}
	}
	if st, err := os.Stat(filepath.Join(cwd, "config", "dev", "db.local")); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("copied file: %v, %v", st, err)
	}
}

// A setup command stopped by the app (its context cancelled) ends on the
// host with everything it started: no process is left there. Stopped once
// its command runs (the "sleep 301" process itself, not a command line
// that names it), and stopped as soon as anything of it is on the host —
// before the command's process may have made its own group, which a stop
// used to miss (the group then ran on: seen under load, 2026-11-28).
func TestRemoteSetupStopKillsItsGroup(t *testing.T) {
	srv := sshdtest.Start(t)
	pool, err := remote.NewPool(remote.Options{ConfigFile: srv.ConfigFile, ControlDir: srv.ControlDir, ConnectTimeout: time.Second})
	must(t, err)
	defer pool.Close()
	c, err := pool.Client(sshdtest.Alias)
	must(t, err)
	running := func(ps []string) bool {
		return slices.ContainsFunc(ps, func(p string) bool { return strings.HasSuffix(p, " sleep 301") })
	}
	stopSetup(t, srv, c, running)
	for range 5 {
		stopSetup(t, srv, c, func(ps []string) bool { return len(ps) > 0 })
	}
}

// stopSetup runs a setup command on the host, cancels it once the host's
// processes satisfy ready, and checks that it ended stopped with nothing
// left on the host.
func stopSetup(t *testing.T, srv *sshdtest.Server, c *remote.Client, ready func([]string) bool) {
	t.Helper()
	cmd, err := wtsetup.ParseCommand(`sleep 300 & sleep 301; echo never`)
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sb strings.Builder
	done := make(chan wtsetup.Result)
	go func() { done <- remote.HostSetup{C: c}.Run(ctx, cmd, srv.Home, nil, &sb) }()
	deadline := time.Now().Add(30 * time.Second)
	for !ready(srv.RemoteProcesses()) {
		if time.Now().After(deadline) {
			t.Fatalf("the setup did not start on the host: %v", srv.RemoteProcesses())
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	res := <-done
	if !res.Stopped || res.OK() || strings.Contains(sb.String(), "never") {
		t.Fatalf("result %+v, output %q", res, sb.String())
	}
	if left := srv.WaitNoRemoteProcesses(context.Background(), 10*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host: %q", left)
	}
	t.Logf("stopped: %+v", res)
}
