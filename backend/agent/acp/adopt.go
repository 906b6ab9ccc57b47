package acp

// Adoption (docs/relay.md): after an app restart the agent behind a relay
// is the same process in the middle of the same JSON-RPC session, so its
// handshake (initialize, session/new or load) is not sent again. The relay
// replays the journal from its start: every line goes through the stream
// (the fresh normalizer rebuilds the transcript state and announces the
// permission requests), but a replayed line is not given to the SDK — the
// previous app answered it already — except that a permission request
// still unanswered is answered by hand with its JSON-RPC id.
//
// The SDK numbers its requests from 1 again, as the previous app's did: an
// idShift adds a base (agent.AdoptedRequestBase) to the id of every
// request it writes and takes it off the responses it reads, and a late
// response to one of the previous app's requests (an id below the base)
// goes to the stream only (the normalizer ends a turn on a stopReason
// whatever the id).

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// idShift renumbers the SDK's requests on an adopted session.
type idShift struct{ base uint64 }

// wireMsg is the part of a JSON-RPC message that decides where it goes.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// out renumbers a request the SDK writes (nil: no shift).
func (sh *idShift) out(line []byte) []byte {
	if sh == nil {
		return line
	}
	var w wireMsg
	if json.Unmarshal(line, &w) != nil || w.Method == "" || len(w.ID) == 0 {
		return line
	}
	id, err := strconv.ParseUint(string(w.ID), 10, 64)
	if err != nil {
		return line
	}
	return withID(line, strconv.FormatUint(id+sh.base, 10))
}

// in renumbers a response for the SDK; ok false: a response to a request
// of the previous app, not the SDK's.
func (sh *idShift) in(line []byte, id json.RawMessage) ([]byte, bool) {
	n, err := strconv.ParseUint(string(id), 10, 64)
	if err != nil || n <= sh.base {
		return nil, false
	}
	return withID(line, strconv.FormatUint(n-sh.base, 10)), true
}

// withID is line with its id replaced.
func withID(line []byte, id string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return line
	}
	m["id"] = json.RawMessage(id)
	b, err := json.Marshal(m)
	if err != nil {
		return line
	}
	return b
}

// adopt makes s an adopted session: no handshake, the stored session id,
// requests renumbered.
func (s *session) adopt() {
	s.ids = &idShift{base: uint64(agent.AdoptedRequestBase())}
	s.sessionID = s.cfg.SessionID
}

// onAdoptedFrame is onFrame on an adopted session.
func (s *session) onAdoptedFrame(line []byte, at time.Time) {
	replay := s.stream.Replaying()
	evs := s.stream.Frame(line, at)
	s.notePerms(evs)
	var w wireMsg
	if json.Unmarshal(line, &w) != nil {
		return
	}
	for _, ev := range evs {
		if ev.Type == agent.EventSessionID && ev.SessionID != "" {
			s.mu.Lock()
			s.sessionID = ev.SessionID
			s.mu.Unlock()
		}
	}
	switch {
	case w.Method == "" && len(w.ID) > 0: // a response
		if b, ok := s.ids.in(line, w.ID); ok {
			_, _ = s.sdkIn.Write(append(b, '\n'))
		}
	case replay && w.Method == "session/request_permission" && len(w.ID) > 0:
		s.answerByHand(evs, w.ID)
	case !replay:
		_, _ = s.sdkIn.Write(append(line, '\n'))
	}
}

// answerByHand answers a permission request the previous app read (and
// maybe never answered) once RespondToPermission has the answer.
func (s *session) answerByHand(evs []agent.Event, rpcID json.RawMessage) {
	for _, ev := range evs {
		if ev.Type != agent.EventPermissionRequest || ev.Request == nil {
			continue
		}
		s.mu.Lock()
		pp := s.perms[ev.Request.RequestID]
		if pp != nil {
			pp.claimed = true
		}
		s.mu.Unlock()
		if pp == nil {
			continue
		}
		id := append(json.RawMessage(nil), rpcID...)
		go s.writeAnswer(pp, id)
	}
}

func (s *session) writeAnswer(pp *pendingPerm, id json.RawMessage) {
	var a sdk.RequestPermissionResponse
	select {
	case a = <-pp.answer:
	case <-s.done:
		return
	}
	s.mu.Lock()
	delete(s.perms, pp.id)
	s.mu.Unlock()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": a})
	if err != nil {
		return
	}
	_, _ = (&teeWriter{s: s}).Write(append(line, '\n'))
}

// Detach implements agent.Detacher: behind a relay, the agent keeps
// running when the app quits with "keep".
func (s *session) Detach(ctx context.Context) (bool, error) {
	if !s.p.Relayed() {
		return false, nil
	}
	// The link ends on purpose: its end ("relay lost") is not the agent
	// failing, and must not mark the task errored (a task on a host
	// would then not be adopted at the next start).
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	return true, s.p.Detach(ctx)
}

var _ agent.Detacher = (*session)(nil)
