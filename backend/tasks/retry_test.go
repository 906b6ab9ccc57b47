package tasks_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/tasks"
)

// sessions is the orchestrator as tasks.Retry sees it; it logs the calls.
type sessions struct {
	running []string
	msgs    []agent.Message
	stopErr error
	calls   []string
}

func (s *sessions) Running() []string { return s.running }
func (s *sessions) Stop(context.Context, string) error {
	s.calls = append(s.calls, "stop")
	return s.stopErr
}
func (s *sessions) Messages(context.Context, string) ([]agent.Message, error) { return s.msgs, nil }
func (s *sessions) Resume(context.Context, string) error {
	s.calls = append(s.calls, "resume")
	return nil
}
func (s *sessions) SendMessage(_ context.Context, _, text string) error {
	s.calls = append(s.calls, "send "+text)
	return nil
}

func msg(role agent.Role, text string, undelivered bool) agent.Message {
	m := agent.Message{Role: role, Parts: []agent.Part{{Type: agent.PartText, Text: text}}}
	if undelivered {
		m.Metadata = map[string]any{orchestrator.MetaUndelivered: true}
	}
	return m
}

func TestRetrySendsWhatTheAgentMissed(t *testing.T) {
	user, asst := agent.RoleUser, agent.RoleAssistant
	for name, c := range map[string]struct {
		running []string
		msgs    []agent.Message
		want    []string
	}{
		"undelivered: resumed (it is sent then)": {msgs: []agent.Message{msg(user, "first", false), msg(user, "second", true)},
			want: []string{"resume"}},
		"the last thing asked, sent again": {msgs: []agent.Message{msg(user, "first", false), msg(user, "second", false), msg(asst, "error", false)},
			want: []string{"send second"}},
		"a blank message is skipped": {msgs: []agent.Message{msg(user, "first", false), msg(user, "  ", false)},
			want: []string{"send first"}},
		"nothing asked: resumed": {msgs: []agent.Message{msg(asst, "hello", false)},
			want: []string{"resume"}},
		"a live failed session ends first": {running: []string{"other", "t1"}, msgs: []agent.Message{msg(user, "go", false)},
			want: []string{"stop", "send go"}},
		"another task's session is left": {running: []string{"other"}, msgs: []agent.Message{msg(user, "go", false)},
			want: []string{"send go"}},
	} {
		s := &sessions{running: c.running, msgs: c.msgs}
		if err := tasks.Retry(t.Context(), s, "t1"); err != nil || !slices.Equal(s.calls, c.want) {
			t.Errorf("%s: calls %v, %v; want %v", name, s.calls, err, c.want)
		}
	}
	s := &sessions{running: []string{"t1"}, msgs: []agent.Message{msg(user, "go", false)}, stopErr: errors.New("would not stop")}
	if err := tasks.Retry(t.Context(), s, "t1"); err == nil || !slices.Equal(s.calls, []string{"stop"}) {
		t.Errorf("a session that would not stop: %v, calls %v; want the error and nothing sent", err, s.calls)
	}
}
