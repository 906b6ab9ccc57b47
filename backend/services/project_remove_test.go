package services_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/term"
	"github.com/jean-claude/jean-claude/backend/workspace"
	"github.com/jean-claude/jean-claude/backend/workspace/workspacetest"
)

// agentProcs runs a real process per task (its "agent", in its own process
// group) and stops it as the orchestrator would: the group killed, waited.
type agentProcs struct {
	mu      sync.Mutex
	procs   map[string]*exec.Cmd
	stopped []string
	err     error // Stop fails with it (an agent that would not die)
}

func (a *agentProcs) start(t *testing.T, taskID string) int {
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	a.mu.Lock()
	a.procs[taskID] = cmd
	a.mu.Unlock()
	return cmd.Process.Pid
}

func (a *agentProcs) Stop(_ context.Context, taskID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = append(a.stopped, taskID)
	if a.err != nil {
		return a.err
	}
	if cmd := a.procs[taskID]; cmd != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		delete(a.procs, taskID)
	}
	return nil
}

// Removing a project stops every task's agent and ends every task's shell
// (their background jobs too) before the project and its tasks are
// forgotten; an agent that cannot be stopped keeps the whole project.
func TestProjectRemoveEndsAgentsAndShells(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	f := newGitFixture(t)
	ws := workspace.New(f.DB, f.G, nil)
	out := &termOut{out: map[string]*strings.Builder{}}
	terms := term.NewManager(out)
	t.Cleanup(func() { terms.CloseAll(context.Background()) })
	ws.SetTerminals(services.CloseTaskTerminals(terms))
	shells := services.NewTerminalService(t.Context(), terms, nil, nil, ws)
	agents := &agentProcs{procs: map[string]*exec.Cmd{}, err: errors.New("agent would not die")}
	projects := services.NewProjectService(t.Context(), f.DB, agent.NewRegistry(), nil, nil, agents, ws)

	var agentPIDs, jobPIDs []int
	ids := []string{f.Task("one"), f.Task("two")}
	for _, id := range ids {
		f.prepare(id)
		agentPIDs = append(agentPIDs, agents.start(t, id))
		sh, err := shells.OpenTaskTerminal(id, 80, 20)
		if err != nil {
			t.Fatal(err)
		}
		pidFile := filepath.Join(t.TempDir(), "pid")
		if err := shells.Write(sh.ID, "sleep 300 & echo $! > "+pidFile+"\r"); err != nil {
			t.Fatal(err)
		}
		var pid int
		workspacetest.Eventually(t, "the shell's background job", func() bool {
			b, _ := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			return pid > 0
		})
		jobPIDs = append(jobPIDs, pid)
	}

	if err := projects.Remove(f.Project.ID); err == nil || !strings.Contains(err.Error(), "could not stop its agent") {
		t.Fatalf("Remove with an unstoppable agent = %v, want a refusal naming the agent", err)
	}
	if _, err := projects.Get(f.Project.ID); err != nil {
		t.Fatalf("the project is gone although an agent was not stopped: %v", err)
	}
	for i, id := range ids {
		if list, _ := shells.TaskTerminals(id); len(list) != 1 || !proc.Alive(jobPIDs[i]) {
			t.Fatalf("a refused Remove ended task %s's shell", id)
		}
	}

	agents.err = nil
	if err := projects.Remove(f.Project.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(slices.Values(agents.stopped[1:])), slices.Sorted(slices.Values(ids)); !slices.Equal(got, want) {
		t.Fatalf("stopped %v, want every task's agent (%v)", agents.stopped[1:], ids)
	}
	for i, id := range ids {
		if proc.Alive(agentPIDs[i]) {
			t.Errorf("task %s's agent (pid %d) still runs", id, agentPIDs[i])
		}
		if list, _ := shells.TaskTerminals(id); len(list) != 0 {
			t.Errorf("task %s's shells left: %+v", id, list)
		}
		workspacetest.Eventually(t, "the shell's background job killed", func() bool { return !proc.Alive(jobPIDs[i]) })
		if _, err := store.GetTask(t.Context(), f.DB.R, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("task %s kept: %v", id, err)
		}
	}
	if _, err := projects.Get(f.Project.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("project kept: %v", err)
	}
}
