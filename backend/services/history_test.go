package services

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// forkInfo is a backend that only says whether it forks.
type forkInfo struct {
	name  agent.BackendType
	forks bool
}

func (b forkInfo) Info() agent.Info {
	return agent.Info{Name: b.name, Capabilities: agent.Capabilities{Fork: b.forks}}
}

func (forkInfo) Start(context.Context, agent.Config, string) (agent.Session, error) {
	return nil, errors.New("not started here")
}

func (forkInfo) Dispose(context.Context) error { return nil }

// TestHistoryForkAsksTheBackend: a fork from the end of an ACP agent's
// session is native when that backend says Capabilities.Fork (the agent
// advertised session/fork), seeded when it does not.
func TestHistoryForkAsksTheBackend(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "h.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const acp = agent.BackendType("acp.test.fake")
	p, _ := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p"})
	parent, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "t", Prompt: "hi", AgentBackend: acp})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		m := agent.Message{ID: "a1", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: "hello"}}}
		if _, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: parent.ID, Message: m, Format: "acp", Version: 1, Now: 1}); err != nil {
			return err
		}
		return store.SetTaskSessionID(ctx, tx, parent.ID, "sess-parent", 2)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, forks := range []bool{true, false} {
		reg := agent.NewRegistry()
		reg.Register(forkInfo{name: acp, forks: forks})
		told := &eventLog{}
		fork, err := NewHistoryService(ctx, db, reg, told).Fork(ForkInput{TaskID: parent.ID, MessageID: "a1"})
		if err != nil {
			t.Fatal(err)
		}
		// Every window lists the new task, not only the one that forked.
		if len(told.names) != 1 || told.names[0] != orchestrator.EventTaskUpdated {
			t.Errorf("a fork emitted %v, want one %s", told.names, orchestrator.EventTaskUpdated)
		}
		run, err := store.LoadTaskRun(ctx, db.R, fork.ID)
		if err != nil {
			t.Fatal(err)
		}
		if run.ForkSession != forks || (run.SessionID == "sess-parent") != forks {
			t.Errorf("backend forks %v: fork task %+v", forks, run.Task)
		}
	}
}
