package orchestrator

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// MetaUndelivered is the metadata key set on a user message stored while
// its agent could not start (not installed, not signed in, …): the prompt
// is kept as the task's message and the next start sends it again.
const MetaUndelivered = "undelivered"

// undeliveredPrompt returns the task's latest message when it is a user
// message its agent never received (ok false otherwise).
func undeliveredPrompt(ctx context.Context, q store.SQLRunner, taskID string) (agent.Message, bool) {
	m, ok, err := store.LastMessage(ctx, q, taskID)
	if err != nil || !ok || m.Role != agent.RoleUser {
		return agent.Message{}, false
	}
	if v, _ := m.Metadata[MetaUndelivered].(bool); !v {
		return agent.Message{}, false
	}
	return m, true
}

// promptText is the text of a user message (its text parts).
func promptText(m agent.Message) string {
	s := ""
	for _, p := range m.Parts {
		if p.Type == agent.PartText {
			s += p.Text
		}
	}
	return s
}

// keepPrompt stores prompt as an undelivered user message of a task whose
// agent could not start (once: a retry that fails again keeps the same
// message) and emits it. A resume's "continue" is not the user's words and
// is not kept.
func (o *Orchestrator) keepPrompt(ctx context.Context, tx *txT, taskID, prompt string, now int64) (*agent.Message, error) {
	if prompt == "" || prompt == ResumePrompt {
		return nil, nil
	}
	if m, ok := undeliveredPrompt(ctx, tx, taskID); ok && promptText(m) == prompt {
		return nil, nil
	}
	m := userMessage(prompt)
	m.Metadata[MetaUndelivered] = true
	stored, err := store.UpsertMessage(ctx, tx, store.MessageWrite{
		TaskID: taskID, Message: m, Format: UserMessageFormat, Version: o.version, Now: now,
	})
	if err != nil {
		return nil, err
	}
	return &stored, nil
}

// failStart records a start that failed: the prompt kept as the task's
// undelivered message and the task errored with the reason (endStart).
func (o *Orchestrator) failStart(ctx context.Context, taskID, prompt string, cause error) {
	o.endStart(ctx, taskID, prompt, store.StatusErrored, cause.Error())
}

// storeStartPrompt stores the prompt a session was started with: it
// delivers the undelivered message with that text when there is one (same
// id, so the transcript shows the prompt once), else stores a new one.
func (r *run) storeStartPrompt(ctx context.Context, tx *txT, prompt string, now int64) (agent.Message, error) {
	m, ok := undeliveredPrompt(ctx, tx, r.taskID)
	if !ok || promptText(m) != prompt {
		return r.storeUserMessage(ctx, tx, prompt, now)
	}
	delete(m.Metadata, MetaUndelivered)
	m.Timestamp = ""
	stored, err := store.UpsertMessage(ctx, tx, store.MessageWrite{
		TaskID: r.taskID, Message: m, Format: UserMessageFormat, Version: r.o.version, Now: now,
	})
	if err == nil {
		r.echo[prompt] = stored.ID
	}
	return stored, err
}

// retryPrompt is the prompt a resumed task sends when nothing is queued:
// the undelivered message of a start that failed, else fallback.
func (o *Orchestrator) retryPrompt(ctx context.Context, taskID, fallback string) string {
	if m, ok := undeliveredPrompt(ctx, o.db.R, taskID); ok {
		return promptText(m)
	}
	return fallback
}
