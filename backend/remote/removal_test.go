package remote_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/tasks"
)

// A task whose worktree is on a host is deleted while the host is
// unreachable: the delete succeeds here at once (the task is gone), the
// worktree's removal is stored; it stays stored, the worktree there,
// while the host is away; once the host answers the worktree and its
// (merged) branch are removed there and the record forgotten.
func TestDeleteWhileHostDownRemovesWorktreeLater(t *testing.T) {
	e := newHostEnv(t)
	ctx := context.Background()
	tk, err := store.CreateTask(ctx, e.db.W, store.NewTask{ProjectID: e.projectID, Name: "gone", Prompt: "p", AgentBackend: agent.BackendClaudeCode})
	must(t, err)
	tr, err := store.LoadTaskRun(ctx, e.db.R, tk.ID)
	must(t, err)
	cwd, err := e.ws.Cwd(ctx, tr)
	must(t, err)
	tg, err := e.ws.Task(ctx, tk.ID)
	must(t, err)
	if tg.WorktreePath == "" || tg.BranchName == "" || cwd != tg.WorktreePath {
		t.Fatalf("no worktree: cwd %q, %+v", cwd, tg)
	}
	gits := &remote.ProjectGits{Pool: e.pool, DB: e.db, RetryMin: 100 * time.Millisecond, RetryMax: 500 * time.Millisecond}
	e.ws.SetRemote(gits)

	l := killSSH(t, e.srv)
	if _, err := tasks.NewEnder(e.db, nil, nil, e.ws).Delete(ctx, tk.ID, false); err != nil {
		t.Fatalf("delete while the host is away: %v", err)
	}
	if _, err := store.GetTask(ctx, e.db.R, tk.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the task is still there: %v", err)
	}
	list, err := store.PendingRemovals(ctx, e.db.R)
	must(t, err)
	if len(list) != 1 || list[0].Host != sshdtest.Alias || list[0].Worktree != tg.WorktreePath || list[0].Branch != tg.BranchName || list[0].Force {
		t.Fatalf("stored removals: %+v", list)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { gits.RunRemovals(rctx); close(done) }()
	defer func() { cancel(); <-done }()
	time.Sleep(time.Second) // a few rounds while the host is away
	if _, err := os.Stat(tg.WorktreePath); err != nil {
		t.Fatalf("the worktree went while the host was away: %v", err)
	}
	if list, _ := store.PendingRemovals(ctx, e.db.R); len(list) != 1 {
		t.Fatalf("the record went while the host was away: %+v", list)
	}

	must(t, syscall.Kill(l, syscall.SIGCONT))
	waitUntil(t, "the worktree removed on the host, the record forgotten", func() bool {
		list, _ := store.PendingRemovals(ctx, e.db.R)
		_, err := os.Stat(tg.WorktreePath)
		return len(list) == 0 && errors.Is(err, os.ErrNotExist)
	})
	c, err := e.pool.Client(sshdtest.Alias)
	must(t, err)
	out, err := c.Output(ctx, "git", "-C", filepath.Join(e.srv.Home, "code", "app"), "branch", "--list", tg.BranchName)
	must(t, err)
	if strings.TrimSpace(string(out)) != "" {
		t.Fatalf("the branch is still there: %q", out)
	}
}
