package services_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/term"
	"github.com/jean-claude/jean-claude/backend/workspace"
	"github.com/jean-claude/jean-claude/backend/workspace/workspacetest"
)

type termOut struct {
	mu  sync.Mutex
	out map[string]*strings.Builder
}

func (r *termOut) Emit(name string, p any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o, ok := p.(term.Output); ok {
		if r.out[o.ID] == nil {
			r.out[o.ID] = &strings.Builder{}
		}
		r.out[o.ID].Write(o.Data)
	}
}

func (r *termOut) text(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.out[id] == nil {
		return ""
	}
	return r.out[id].String()
}

func TestTaskTerminalRunsInTheWorktreeAndDiesWithTheTask(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	f := newGitFixture(t)
	ws := workspace.New(f.DB, f.G, nil)
	out := &termOut{out: map[string]*strings.Builder{}}
	terms := term.NewManager(out)
	t.Cleanup(func() { terms.CloseAll(context.Background()) })
	ws.SetTerminals(services.CloseTaskTerminals(terms))
	svc := services.NewTerminalService(t.Context(), terms, nil, nil, ws)
	tasks := services.NewTaskService(t.Context(), f.DB, agent.NewRegistry(), nil, ws, nil)

	id := f.Task("with a shell")
	info := f.prepare(id)
	a, err := svc.OpenTaskTerminal(id, 90, 20)
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.OpenTaskTerminal(id, 90, 20)
	if err != nil {
		t.Fatal(err)
	}
	if a.Cwd != info.WorktreePath || a.Title != "sh 1" || b.Title != "sh 2" {
		t.Fatalf("terminals %+v %+v (worktree %s)", a, b, info.WorktreePath)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	if err := svc.Write(a.ID, "pwd; sleep 300 & echo $! > "+pidFile+"\r"); err != nil {
		t.Fatal(err)
	}
	workspacetest.Eventually(t, "pwd", func() bool { return strings.Contains(out.text(a.ID), info.WorktreePath) })
	var pid string
	workspacetest.Eventually(t, "background pid", func() bool {
		b, _ := os.ReadFile(pidFile)
		pid = strings.TrimSpace(string(b))
		return pid != ""
	})
	list, _ := svc.TaskTerminals(id)
	if len(list) != 2 {
		t.Fatalf("list %+v", list)
	}
	snap, err := svc.Snapshot(a.ID)
	if err != nil || !strings.Contains(string(snap.Data), info.WorktreePath) {
		t.Fatalf("snapshot %q %v", snap.Data, err)
	}

	if err := tasks.DeleteDiscardingChanges(id); err != nil {
		t.Fatal(err)
	}
	if list, _ := svc.TaskTerminals(id); len(list) != 0 {
		t.Fatalf("terminals left: %+v", list)
	}
	workspacetest.Eventually(t, "the shell's background job killed", func() bool {
		n, _ := strconv.Atoi(pid)
		return !proc.Alive(n)
	})
}
