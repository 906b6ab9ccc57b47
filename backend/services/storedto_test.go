package services

import (
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inbox"
	"github.com/jean-claude/jean-claude/backend/store"
)

// The conversions keep the fields; this keeps the JSON names the events
// and the older screens know.
func TestStoreDTOsKeepTheJSONNames(t *testing.T) {
	g := store.CompareGroup{ID: "g", ProjectID: "p", Prompt: "x", CreatedAt: 1, KeptTaskID: "t", KeptAt: 2, TaskIDs: []string{"t", "u"}}
	sameJSON(t, "CompareGroup", g, compareGroupOf(g))
	c := store.CheckRun{TaskID: "t", Command: "make", Status: "passed", ExitCode: 3, Output: "o", StartedAt: 4, EndedAt: 5}
	sameJSON(t, "CheckRun", c, CheckRun(c))
	h := store.SearchHit{RowID: 1, TaskID: "t", TaskName: "n", TaskPrompt: "p", TaskSummary: "s", ProjectID: "p", ProjectName: "pn",
		Agent: "a", MessageID: "m", MessageIndex: 2, Role: "user", CreatedAt: 3, Snippet: "x"}
	sameJSON(t, "SearchHit", h, searchHitOf(h))
	l := store.TaskLink{TaskID: "t", Name: "n", Kind: store.LinkSpawn, Backend: "b", Status: "running", MessageID: "m"}
	sameJSON(t, "TaskLink", l, taskLinkOf(l))
	u := store.UsageRow{Day: "2026-01-02", ProjectID: "p", ProjectName: "pn", Agent: "a", CostUSD: 1.5, InputTokens: 2, OutputTokens: 3, Turns: 4}
	sameJSON(t, "UsageRow", u, usageRowOf(u))
	tl := store.TaskLimit{TaskID: "t", ResetAt: 1, Message: "m", Kind: "k", State: "s", DetectedAt: 2, RetriedAt: 3, Error: "e"}
	sameJSON(t, "TaskLimit", tl, TaskLimit(tl))
}

func TestPtrOfKeepsNil(t *testing.T) {
	if got := ptrOf((*store.TaskLink)(nil), taskLinkOf); got != nil {
		t.Errorf("nil mapped to %+v", got)
	}
	l := store.TaskLink{TaskID: "t"}
	if got := ptrOf(&l, taskLinkOf); got == nil || got.TaskID != "t" {
		t.Errorf("mapped to %+v", got)
	}
}

func TestInboxDTOKeepsTheEventsJSON(t *testing.T) {
	it := inbox.Item{Key: "k", Kind: inbox.KindPlan, TaskID: "t", TaskName: "n", ProjectID: "p", ProjectName: "pn",
		AgentBackend: "claude-code", Status: "waiting", RequestID: "r", Request: &agent.Request{RequestID: "r", ToolName: "Bash"},
		Plan: "# plan", Summary: "s", At: 7}
	sameJSON(t, "InboxPayload", inbox.Payload{Items: []inbox.Item{it}, Count: 1},
		InboxPayload{Items: mapAll([]inbox.Item{it}, inboxItemOf), Count: 1})
}
