package remote_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
	"github.com/jean-claude/jean-claude/backend/store"
)

// fakeGeminiOnHost installs a stand-in gemini in the host's ~/.local/bin:
// it records its arguments and the prompt it read on stdin, writes
// hello.txt in its folder and replays a stream-json recording; a "slow"
// prompt writes two lines and hangs.
func fakeGeminiOnHost(t *testing.T, e *remoteEnv) (args, prompts string) {
	rec, err := filepath.Abs("../agent/gemini/testdata/main_yolo.jsonl")
	must(t, err)
	args, prompts = filepath.Join(e.srv.Home, "gemini-args"), filepath.Join(e.srv.Home, "gemini-prompts")
	script := `#!/bin/sh
prompt=$(cat)
printf '%s\n' "$*" >> '` + args + `'
printf '%s\n' "$prompt" >> '` + prompts + `'
printf 'Hello\n' > hello.txt
case "$prompt" in
*slow*) head -2 '` + rec + `'; exec sleep 300 ;;
*) cat '` + rec + `' ;;
esac
`
	dir := filepath.Join(t.TempDir(), "bin")
	must(t, os.MkdirAll(dir, 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "gemini"), []byte(script), 0o755))
	installOnHost(t, e.srv, filepath.Join(dir, "gemini"))
	return args, prompts
}

// A remote project's task on headless Gemini CLI: each turn's process
// runs on the host behind a relay (the CLI found by name in the host's
// ~/.local/bin, the backend's binary does not exist here), in the task's
// worktree there; the prompt goes on its stdin, never on its command line;
// the diff (the host's git) shows its file. A second turn hangs: the host
// goes away (the task says "host unreachable since …"), comes back (the
// reason goes), Stop ends the turn there; nothing left on either side, the
// secret not on the host's disk.
func TestOrchestratorRemoteGeminiTask(t *testing.T) {
	e := newHostEnv(t)
	args, prompts := fakeGeminiOnHost(t, e)
	e.reg.Register(withEnv{gemini.New(gemini.Options{Binary: "/nowhere/gemini"}), map[string]string{"JC_TEST_SECRET": e.secret}})
	ctx := context.Background()
	o := e.orchestrator(t, false)
	defer o.Close(ctx)
	prompt := "Create hello.txt; words that stay off argv: --yolo $(touch PWNED) 'q'"
	id := e.startTaskWith(t, o, agent.BackendGemini, prompt)
	waitTask(t, e.db, id, "the turn to complete", func(tr store.TaskRun) bool { return tr.Status == store.StatusCompleted })
	a, err := os.ReadFile(args)
	must(t, err)
	if strings.Contains(string(a), "hello.txt") || strings.Contains(string(a), "PWNED") {
		t.Fatalf("the prompt is on the command line: %q", a)
	}
	p, err := os.ReadFile(prompts)
	must(t, err)
	if strings.TrimSpace(string(p)) != prompt {
		t.Fatalf("prompt read on stdin = %q, want %q", p, prompt)
	}
	if !strings.Contains(storedFrames(t, e, id), `"type":"result"`) {
		t.Fatal("the turn's result is not stored")
	}
	d, err := e.gs.Diff(id)
	if err != nil || !d.Available || len(d.Files) != 1 || d.Files[0].Path != "hello.txt" {
		t.Fatalf("diff = %+v, %v", d, err)
	}

	must(t, o.SendMessage(ctx, id, "a slow one"))
	waitTask(t, e.db, id, "the second turn at work", func(tr store.TaskRun) bool {
		b, _ := os.ReadFile(prompts)
		return tr.Status == store.StatusRunning && strings.Contains(string(b), "a slow one")
	})
	time.Sleep(300 * time.Millisecond) // its relay attached
	l := killSSH(t, e.srv)
	down := waitTask(t, e.db, id, "host unreachable", func(tr store.TaskRun) bool {
		return strings.HasPrefix(tr.StatusReason, "host unreachable since ")
	})
	t.Logf("task %s: %q", down.Status, down.StatusReason)
	must(t, syscall.Kill(l, syscall.SIGCONT))
	waitTask(t, e.db, id, "the link back", func(tr store.TaskRun) bool { return tr.StatusReason == "" })
	must(t, o.Stop(ctx, id))
	tr := waitTask(t, e.db, id, "the turn stopped", func(tr store.TaskRun) bool {
		return tr.Status != store.StatusRunning && tr.Status != store.StatusWaiting
	})
	t.Logf("stopped: %s %q", tr.Status, tr.StatusReason)
	waitTask(t, e.db, id, "the relay's files gone", func(store.TaskRun) bool {
		m, _ := filepath.Glob(filepath.Join(e.srv.Home, ".cache", "jean-claude", "relays", "*"))
		return len(m) == 0
	})
	if left := e.srv.WaitNoRemoteProcesses(ctx, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host after Stop: %v", left)
	}
	if hits := grepTree(e.srv.Home, e.secret); len(hits) > 0 {
		t.Fatalf("the secret was written on the host: %v", hits)
	}
	if _, err := os.Stat(filepath.Join(e.srv.Home, "PWNED")); err == nil {
		t.Fatal("a word of the prompt ran")
	}
}

// A Gemini turn left running on the host by a crashed app (its ssh gone,
// the task still "running" in the database): the next start does not
// adopt it (as locally: the task is interrupted) but stops the turn's
// relay there, which removes its files; nothing is left on the host.
func TestGeminiTurnLeftByCrashStoppedAtStart(t *testing.T) {
	e := newHostEnv(t)
	e.stops = true
	_, prompts := fakeGeminiOnHost(t, e)
	e.reg.Register(withEnv{gemini.New(gemini.Options{Binary: "/nowhere/gemini"}), map[string]string{"JC_TEST_SECRET": e.secret}})
	ctx := context.Background()
	pool1, err := remote.NewPool(remote.Options{ConfigFile: e.srv.ConfigFile, ControlDir: filepath.Join(e.srv.ControlDir, "a1"), ConnectTimeout: time.Second})
	must(t, err)
	t.Cleanup(pool1.Close)
	o1 := e.orchestratorOn(t, pool1, false)
	id := e.startTaskWith(t, o1, agent.BackendGemini, "a slow one")
	waitTask(t, e.db, id, "the turn at work", func(tr store.TaskRun) bool {
		b, _ := os.ReadFile(prompts)
		return tr.Status == store.StatusRunning && strings.Contains(string(b), "a slow one")
	})
	time.Sleep(300 * time.Millisecond) // its relay attached
	// The app dies: its connections go, none is made again.
	pool1.Close()
	for _, p := range sshdtest.LocalProcessesMatching(filepath.Join(e.srv.ControlDir, "a1")) {
		var pid int
		if _, err := fmt.Sscan(p, &pid); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	// This process goes on (a real crash would not): the first app's run
	// ends on its lost link; the database is put back as the crash left it.
	waitTask(t, e.db, id, "the first app's run ended", func(tr store.TaskRun) bool { return tr.Status != store.StatusRunning })
	must(t, e.db.Tx(ctx, func(tx *sql.Tx) error { return store.SetTaskStatus(ctx, tx, id, store.StatusRunning, "", store.Now()) }))
	if len(e.srv.RemoteProcesses()) == 0 {
		t.Fatal("the turn ended with its app: nothing left to check")
	}

	o2 := e.orchestrator(t, false)
	defer o2.Close(ctx)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	agentGone(t, e, id)
	tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true })
	if tr.Status != store.StatusInterrupted || tr.StatusReason != orchestrator.ReasonAppClosed {
		t.Fatalf("at the next start: %s %q", tr.Status, tr.StatusReason)
	}
}
