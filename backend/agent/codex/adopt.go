package codex

import (
	"context"
	"encoding/json"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Adoption (docs/relay.md): after an app restart the app-server behind a
// relay is the same process, in the middle of the same JSON-RPC session.
// Nothing of the handshake is sent again (a second initialize is refused,
// a second thread/start would open another thread): the relay replays the
// journal from its start, and the session rebuilds its books from it —
// the thread (thread/started or a thread result), the turn in flight
// (turn/started, turn/completed), the approvals still unanswered
// (requestApproval, minus serverRequest/resolved) — while the stream's
// fresh normalizer rebuilds the transcript state. New requests use ids from
// agent.AdoptedRequestBase, above every id the previous app used, so a late
// response to one of its requests is never taken for one of ours.

// adopt sets up the books of an adopted session before anything is sent.
func (s *session) adopt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID = agent.AdoptedRequestBase()
	if s.threadID == "" {
		s.threadID = s.cfg.SessionID
	}
}

// adoptBooks keeps what an adopted session can only learn from the
// journal: the thread id and the approvals answered already.
func (s *session) adoptBooks(m *rpcMessage) {
	switch {
	case m.Method == "thread/started" || (m.Method == "" && len(m.Result) > 0):
		var p threadResult
		if json.Unmarshal(m.Params, &p) != nil || p.Thread == nil {
			if json.Unmarshal(m.Result, &p) != nil || p.Thread == nil {
				return
			}
		}
		if p.Thread.ID != "" {
			s.mu.Lock()
			s.threadID = p.Thread.ID
			s.mu.Unlock()
		}
	case m.Method == "serverRequest/resolved":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		s.mu.Lock()
		for k, id := range s.perms {
			if string(id) == string(p.RequestID) {
				delete(s.perms, k)
			}
		}
		s.mu.Unlock()
	}
}

// Detach implements agent.Detacher: behind a relay, the app-server keeps
// running when the app quits with "keep".
func (s *session) Detach(ctx context.Context) (bool, error) {
	if !s.proc.Relayed() {
		return false, nil
	}
	// The link ends on purpose: its end ("relay lost") is not the agent
	// failing, and must not mark the task errored (a task on a host
	// would then not be adopted at the next start).
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	return true, s.proc.Detach(ctx)
}

var _ agent.Detacher = (*session)(nil)
