package limits

import (
	"context"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// TestRetryLastMessage: a task with no user message is retried with its
// prompt; once it has user messages, with the latest one's text.
func TestRetryLastMessage(t *testing.T) {
	db := openDB(t, "t1")
	ctx := context.Background()
	var sent []string
	retry := RetryLastMessage(db, func(_ context.Context, taskID, text string) error {
		sent = append(sent, taskID+": "+text)
		return nil
	})
	must(t, retry(ctx, "t1"))
	for i, text := range []string{"first follow-up", "second follow-up"} {
		_, err := store.UpsertMessage(ctx, db.W, store.MessageWrite{TaskID: "t1", Format: "claude-code", Version: 1, Now: int64(i + 1),
			Message: agent.Message{ID: text, Role: agent.RoleUser, Parts: []agent.Part{{Type: agent.PartText, Text: text}}}})
		must(t, err)
	}
	must(t, retry(ctx, "t1"))
	if want := []string{"t1: the prompt", "t1: second follow-up"}; !equal(sent, want) {
		t.Fatalf("sent %q, want %q", sent, want)
	}
	if err := retry(ctx, "missing"); err == nil {
		t.Fatal("a missing task was retried")
	}
}
