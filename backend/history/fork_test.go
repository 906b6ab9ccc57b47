package history_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/history"
	"github.com/jean-claude/jean-claude/backend/store"
)

func TestForkAndSpawn(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, _ := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p"})
	parent, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "Refactor", Prompt: "refactor", AgentBackend: agent.BackendClaudeCode, Model: "opus"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []agent.Message{
		{ID: "u1", Role: agent.RoleUser, Parts: []agent.Part{{Type: agent.PartText, Text: "Rename loadConfig"}}},
		{ID: "a1", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: "Renaming."},
			{Type: agent.PartToolUse, ToolID: "t1", ToolName: "Bash", Input: []byte(`{"command":"grep -rn loadConfig"}`)}}},
		{ID: "r1", Role: agent.RoleUser, Parts: []agent.Part{{Type: agent.PartToolResult, ToolID: "t1", Content: agent.StringContent("a.go:1: loadConfig()")}}},
		{ID: "a2", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: "LATER TEXT"}}},
	}
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		for i, m := range msgs {
			if _, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: parent.ID, Message: m, Format: "claude-code", Version: 1, Now: int64(i + 1)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	fork, native, err := history.Fork(ctx, db, history.ForkInput{TaskID: parent.ID, MessageID: "r1", Backend: agent.BackendOpenCode, Prompt: "Now rename it in the docs too"})
	if err != nil || native {
		t.Fatal(err, native)
	}
	for _, want := range []string{"Rename loadConfig", "[tool Bash: {\"command\":\"grep -rn loadConfig\"}]", "[tool result: a.go:1: loadConfig()]", "Now rename it in the docs too"} {
		if !strings.Contains(fork.Prompt, want) {
			t.Errorf("fork prompt lacks %q:\n%s", want, fork.Prompt)
		}
	}
	if strings.Contains(fork.Prompt, "LATER TEXT") {
		t.Errorf("fork prompt holds messages after the fork point:\n%s", fork.Prompt)
	}
	if fork.AgentBackend != agent.BackendOpenCode || fork.Model != "" || fork.Name != "Fork of Refactor" || fork.ProjectID != p.ID {
		t.Errorf("fork = %+v", fork)
	}
	if _, _, err := history.Fork(ctx, db, history.ForkInput{TaskID: parent.ID, MessageID: "nope"}); !errors.Is(err, history.ErrNoMessage) {
		t.Errorf("fork from a missing message: %v", err)
	}

	sub, err := history.Spawn(ctx, db, parent.ID, "", "Write the tests")
	if err != nil {
		t.Fatal(err)
	}
	if sub.AgentBackend != agent.BackendClaudeCode || sub.Model != "opus" || sub.Prompt != "Write the tests" {
		t.Errorf("sub-task = %+v", sub)
	}
	if _, err := history.Spawn(ctx, db, parent.ID, "", " "); err == nil {
		t.Error("a sub-task without a prompt was created")
	}

	// Linked both ways.
	up, children, err := store.TaskLinks(ctx, db.R, parent.ID)
	if err != nil || up != nil || len(children) != 2 || children[0].TaskID != fork.ID || children[0].Kind != "fork" ||
		children[0].MessageID != "r1" || children[1].TaskID != sub.ID || children[1].Kind != "spawn" {
		t.Errorf("parent's links: %+v %+v %v", up, children, err)
	}
	up, children, err = store.TaskLinks(ctx, db.R, fork.ID)
	if err != nil || up == nil || up.TaskID != parent.ID || up.Kind != "fork" || up.Name != "Refactor" || len(children) != 0 {
		t.Errorf("fork's links: %+v %+v %v", up, children, err)
	}
	// Deleting the parent keeps the children, unlinked.
	if err := store.DeleteTask(ctx, db.W, parent.ID); err != nil {
		t.Fatal(err)
	}
	if up, _, err := store.TaskLinks(ctx, db.R, sub.ID); err != nil || up != nil {
		t.Errorf("after the parent's deletion: %+v %v", up, err)
	}
}

// TestNativeFork: a fork from the end of a Claude Code session, on Claude
// Code, holds the parent's session id to fork on its first start; a fork
// from an earlier message, or onto another backend, is seeded. The flag
// clears once the fork's own session id is stored.
func TestNativeFork(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, _ := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p"})
	parent, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "Refactor", Prompt: "refactor", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		for i, m := range []agent.Message{
			{ID: "u1", Role: agent.RoleUser, Parts: []agent.Part{{Type: agent.PartText, Text: "Rename loadConfig"}}},
			{ID: "a1", Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: "Renamed."}}},
			{ID: "res", Role: agent.RoleResult, Result: "Renamed."},
		} {
			if _, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: parent.ID, Message: m, Format: "claude-code", Version: 1, Now: int64(i + 1)}); err != nil {
				return err
			}
		}
		return store.SetTaskSessionID(ctx, tx, parent.ID, "sess-parent", 5)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		msg     string
		backend agent.BackendType
		native  bool
	}{{"a1", "", true}, {"res", agent.BackendClaudeCode, true}, {"u1", "", false}, {"a1", agent.BackendOpenCode, false}} {
		fork, native, err := history.Fork(ctx, db, history.ForkInput{TaskID: parent.ID, MessageID: c.msg, Backend: c.backend})
		if err != nil || native != c.native {
			t.Fatalf("fork from %s on %q: native %v, %v; want native %v", c.msg, c.backend, native, err, c.native)
		}
		run, err := store.LoadTaskRun(ctx, db.R, fork.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.native && (run.SessionID != "sess-parent" || !run.ForkSession || run.Prompt != "Continue from there.") {
			t.Errorf("native fork = %+v", run)
		}
		if !c.native && (run.SessionID != "" || run.ForkSession || !strings.Contains(run.Prompt, "<transcript>")) {
			t.Errorf("seeded fork = %+v", run)
		}
		if !c.native {
			continue
		}
		// The CLI announces the fork's own session: the task owns it and no
		// later start forks again.
		if err := store.SetTaskSessionID(ctx, db.W, fork.ID, "sess-fork-"+c.msg, 9); err != nil {
			t.Fatal(err)
		}
		if run, _ = store.LoadTaskRun(ctx, db.R, fork.ID); run.SessionID != "sess-fork-"+c.msg || run.ForkSession {
			t.Errorf("after the fork's session id: %+v", run)
		}
	}
	if run, _ := store.LoadTaskRun(ctx, db.R, parent.ID); run.SessionID != "sess-parent" || run.ForkSession {
		t.Errorf("parent = %+v", run)
	}
}

// forkCase is a fork from msg onto backend ("" = the parent's): native or
// seeded, and where a native copy ends.
type forkCase struct {
	msg     string
	backend agent.BackendType
	native  bool
	point   string
}

// checkForks stores msgs as a task of backend with a session, forks it as
// each case says (canFork: history.ForkInput.CanFork) and checks the fork
// tasks.
func checkForks(t *testing.T, backend agent.BackendType, canFork func(agent.BackendType) bool, msgs []agent.Message, cases []forkCase) {
	t.Helper()
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, _ := store.AddProject(ctx, db.W, store.NewProject{Name: "p", Path: "/p"})
	parent, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "Refactor", Prompt: "refactor", AgentBackend: backend})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		for i, m := range msgs {
			if _, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: parent.ID, Message: m, Format: string(backend), Version: 1, Now: int64(i + 1)}); err != nil {
				return err
			}
		}
		return store.SetTaskSessionID(ctx, tx, parent.ID, "ses_parent", 100)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		fork, native, err := history.Fork(ctx, db, history.ForkInput{TaskID: parent.ID, MessageID: c.msg, Backend: c.backend, CanFork: canFork})
		if err != nil || native != c.native {
			t.Fatalf("fork from %s on %q: native %v, %v; want native %v", c.msg, c.backend, native, err, c.native)
		}
		run, err := store.LoadTaskRun(ctx, db.R, fork.ID)
		if err != nil {
			t.Fatal(err)
		}
		if c.native && (run.SessionID != "ses_parent" || !run.ForkSession || run.ForkPoint != c.point || run.Prompt != "Continue from there.") {
			t.Errorf("native fork from %s = %+v, want its copy to end at %q", c.msg, run.Task, c.point)
		}
		if !c.native && (run.SessionID != "" || run.ForkSession || run.ForkPoint != "" || !strings.Contains(run.Prompt, "<transcript>")) {
			t.Errorf("seeded fork from %s = %+v", c.msg, run.Task)
		}
	}
}

func text(s string) []agent.Part { return []agent.Part{{Type: agent.PartText, Text: s}} }

// TestNativeForkOpenCode: an OpenCode task forks natively from any message
// OpenCode has: the copy stops before the next message of the session
// (skipping results, the orchestrator's own messages and a sub-agent's
// session); a sub-agent's message, a user message OpenCode never echoed,
// or a fork onto another backend is seeded.
func TestNativeForkOpenCode(t *testing.T) {
	checkForks(t, agent.BackendOpenCode, nil, []agent.Message{
		{ID: "msg_u1", Role: agent.RoleUser, Parts: text("Rename loadConfig")},
		{ID: "msg_a1", Role: agent.RoleAssistant, Parts: text("Asking a sub-agent.")},
		{ID: "msg_s1", Role: agent.RoleAssistant, Parts: text("Found 3 uses."), ParentToolUseID: "call_1"},
		{ID: "msg_a2", Role: agent.RoleAssistant, Parts: text("Renamed.")},
		{ID: "result-msg_u1", Role: agent.RoleResult, Result: "Renamed."},
		{ID: "user-1", Role: agent.RoleUser, Parts: text("Never echoed")},
		{ID: "msg_u2", Role: agent.RoleUser, Parts: text("Now the tests")},
		{ID: "msg_a3", Role: agent.RoleAssistant, Parts: text("Done.")},
		{ID: "result-msg_u2", Role: agent.RoleResult, Result: "Done."},
	}, []forkCase{
		{"msg_u1", "", true, "msg_a1"},
		{"msg_a1", agent.BackendOpenCode, true, "msg_a2"},
		{"msg_a2", "", true, "msg_u2"},
		{"result-msg_u1", "", true, "msg_u2"},
		{"msg_a3", "", true, ""},
		{"result-msg_u2", "", true, ""},
		{"msg_s1", "", false, ""},
		{"user-1", "", false, ""},
		{"msg_a2", agent.BackendClaudeCode, false, ""},
	})
}

// TestNativeForkCodex: a Codex task forks natively at the end of any turn
// (its last message before the turn's result, or the result: thread/fork
// lastTurnId; the thread's end: the whole thread); from a user message or
// the middle of a turn it is seeded.
func TestNativeForkCodex(t *testing.T) {
	checkForks(t, agent.BackendCodex, nil, []agent.Message{
		{ID: "item-u1", Role: agent.RoleUser, Parts: text("Rename loadConfig")},
		{ID: "item-1", Role: agent.RoleAssistant, Parts: text("Renaming.")},
		{ID: "item-2", Role: agent.RoleAssistant, Parts: text("Renamed.")},
		{ID: "sys-1", Role: agent.RoleSystem, Parts: text("Context compacted")},
		{ID: "turn-1:result", Role: agent.RoleResult, Result: "Renamed."},
		{ID: "item-u2", Role: agent.RoleUser, Parts: text("Now the tests")},
		{ID: "item-3", Role: agent.RoleAssistant, Parts: text("Done.")},
		{ID: "turn-2:result", Role: agent.RoleResult, Result: "Done."},
	}, []forkCase{
		{"item-2", "", true, "turn-1"},
		{"sys-1", "", true, "turn-1"},
		{"turn-1:result", agent.BackendCodex, true, "turn-1"},
		{"item-3", "", true, ""},
		{"turn-2:result", "", true, ""},
		{"item-1", "", false, ""},
		{"item-u1", "", false, ""},
		{"item-u2", "", false, ""},
		{"item-2", agent.BackendOpenCode, false, ""},
	})
}

// TestNativeForkACP: an ACP agent whose backend says it forks
// (ForkInput.CanFork: it advertised session/fork) forks natively from the
// session's end, not from an earlier message; one that does not is
// seeded.
func TestNativeForkACP(t *testing.T) {
	const gemini = agent.BackendType("acp.google.gemini")
	msgs := []agent.Message{
		{ID: "u1", Role: agent.RoleUser, Parts: text("Rename loadConfig")},
		{ID: "a1", Role: agent.RoleAssistant, Parts: text("Renamed.")},
		{ID: "r1", Role: agent.RoleResult, Result: "Renamed."},
	}
	forks := func(b agent.BackendType) bool { return b == gemini }
	checkForks(t, gemini, forks, msgs, []forkCase{{"a1", "", true, ""}, {"r1", gemini, true, ""}, {"u1", "", false, ""}})
	checkForks(t, gemini, nil, msgs, []forkCase{{"a1", "", false, ""}})
	checkForks(t, gemini, func(agent.BackendType) bool { return false }, msgs, []forkCase{{"a1", "", false, ""}})
}
