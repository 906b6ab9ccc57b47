package services

import (
	"encoding/json"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

// sameJSON fails unless a and b encode to the same JSON: the DTO carries
// every field of the store type under the same name, so the events (store
// types) and the calls (DTOs) agree.
func sameJSON(t *testing.T, name string, a, b any) {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(ja) != string(jb) {
		t.Errorf("%s:\n store %s\n   dto %s", name, ja, jb)
	}
}

func TestSessionDTOsMapEveryField(t *testing.T) {
	q := store.QueuedMessage{ID: "q", TaskID: "t", Text: "x", Position: 2, CreatedAt: 3}
	sameJSON(t, "QueuedMessage", q, queuedMessageOf(q))

	p := store.PendingRequest{TaskID: "t", RequestID: "r", Kind: "permission", CreatedAt: 4,
		Request: agent.Request{RequestID: "r", ToolName: "Bash"}}
	sameJSON(t, "PendingRequest", p, pendingRequestOf(p))

	d := store.PermissionDecision{ID: 1, TaskID: "t", RequestID: "r", ToolID: "tool", ToolName: "Bash",
		Input: "ls", Behavior: "allow", Scope: "task", Source: "rule", RuleID: "rule", Label: "l",
		Message: "m", CreatedAt: 5}
	sameJSON(t, "PermissionDecision", d, permissionDecisionOf(d))

	a := store.QuestionAnswer{ID: 2, TaskID: "t", RequestID: "q", ToolID: "tool", CreatedAt: 7,
		Request: agent.Request{RequestID: "q", Question: "Which?"}, Answers: [][]string{{"a"}, {"typed"}}}
	sameJSON(t, "QuestionAnswer", a, questionAnswerOf(a))

	r := store.PermissionRule{ID: "rule", Scope: "task", ProjectID: "p", TaskID: "t", ToolName: "Bash",
		MatchKind: "prefix", Pattern: "npm test", SubjectType: "command", CreatedAt: 6}
	sameJSON(t, "PermissionRule", r, permissionRuleOf(r))
}

func TestPermissionAnswerToOrchestrator(t *testing.T) {
	a := PermissionAnswer{Behavior: agent.Deny, Scope: "project", Message: "no", Interrupt: true,
		Rule: &RuleSpec{MatchKind: "folder", Pattern: "src/"}}
	want := orchestrator.PermissionAnswer{Behavior: agent.Deny, Scope: "project", Message: "no", Interrupt: true,
		Rule: &orchestrator.RuleSpec{MatchKind: "folder", Pattern: "src/"}}
	sameJSON(t, "PermissionAnswer", want, a.toOrchestrator())
	if got := (PermissionAnswer{Behavior: agent.Allow, Scope: "once"}).toOrchestrator(); got.Rule != nil {
		t.Errorf("no rule given, got %+v", got.Rule)
	}
}

func TestMapAllKeepsNil(t *testing.T) {
	if got := mapAll([]store.QueuedMessage(nil), queuedMessageOf); got != nil {
		t.Errorf("nil in, got %#v", got)
	}
	if got := mapAll([]store.QueuedMessage{}, queuedMessageOf); got == nil || len(got) != 0 {
		t.Errorf("empty in, got %#v", got)
	}
}
