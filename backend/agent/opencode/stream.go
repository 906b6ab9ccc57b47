package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// run follows the session's events until Stop: it connects GET /event and
// feeds every payload of this session to the shared runtime's stream
// (agent.Stream: normalized in order, one Batch per payload, bounded — when
// the consumer lags, feed blocks and the response is no longer read). When the stream breaks (the server died, the network
// hiccupped) it reconnects with exponential backoff (ReconnectMin …
// ReconnectMax), restarting the server when it is gone, and catches up on
// what it missed with GET /session/{id}/message and GET /session/status;
// the normalizer drops what did not change, so nothing is duplicated.
func (s *Session) run(ctx context.Context) {
	defer func() {
		s.stream.Close() // Events closes once the consumer took the rest
		close(s.done)
	}()
	delay := s.b.opt.reconnectMin()
	first := true
	for {
		c, err := s.srv.client(ctx, s.cfg.Cwd)
		if err == nil {
			err = c.stream(ctx, func() {
				delay = s.b.opt.reconnectMin()
				if first {
					first = false
					if s.created != nil {
						s.feed(s.created)
					}
					if s.cfg.SessionID != "" && !s.adopting {
						s.prime(ctx, c)
					}
					s.readyOne.Do(func() { close(s.ready) })
					if s.adopting {
						// A session the previous app followed: what it
						// missed is delivered (after ready: the consumer
						// reads Events only once Start returned).
						s.catchUp(ctx, c)
					}
					s.setConnected(true)
					return
				}
				s.catchUp(ctx, c)
				s.setConnected(true)
			}, func(frame []byte) bool {
				s.feed(frame)
				return ctx.Err() == nil
			})
		}
		s.setConnected(false)
		if ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		s.lastErr = err
		s.mu.Unlock()
		if errors.Is(err, agent.ErrBinaryNotFound) || errors.Is(err, ErrServerDisposed) {
			s.mu.Lock()
			if !errors.Is(err, ErrServerDisposed) {
				s.waitErr = err
			}
			s.mu.Unlock()
			return
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		delay = min(delay*2, s.b.opt.reconnectMax())
	}
}

// catchUp replays the session's stored messages (and its idle state) as
// frames after a reconnect. They are delivered like any frame (so stored
// history re-normalizes to what was shown); the normalizer emits nothing for
// what did not change.
func (s *Session) catchUp(ctx context.Context, c *client) {
	// The status first: if the turn is over now, the messages read next
	// hold all of it, so the result synthesized below is complete.
	st, stErr := c.status(ctx)
	if !s.replayMessages(ctx, c, s.id) {
		return
	}
	for child := range s.children { // sub-agents' sessions, known before the break
		s.replayMessages(ctx, c, child)
	}
	// Requests asked while we were away (the normalizer drops the ones it
	// already announced), then those replied to meanwhile withdrawn.
	pending, listed := map[string]bool{}, 0
	for kind, typ := range map[string]string{"permission": "permission.asked", "question": "question.asked"} {
		reqs, err := c.pending(ctx, kind)
		if err != nil {
			continue
		}
		listed++
		for _, r := range reqs {
			var ref struct {
				ID        string `json:"id"`
				SessionID string `json:"sessionID"`
			}
			if json.Unmarshal(r, &ref) != nil {
				continue
			}
			// Any session's: a sub-agent's session may not be known yet
			// after an adoption, and its request must not be withdrawn.
			pending[ref.ID] = true
			if ref.SessionID != s.id && !s.children[ref.SessionID] {
				continue
			}
			frame, _ := json.Marshal(map[string]any{"type": typ, "properties": r})
			s.feed(frame)
		}
	}
	if listed == 2 {
		s.withdrawGone(pending)
	}
	if stErr != nil {
		return
	}
	if t := st[s.id]; t == "" || t == "idle" {
		frame, _ := json.Marshal(map[string]any{"type": "session.idle", "properties": map[string]any{"sessionID": s.id}})
		s.feed(frame)
	}
}

// replayMessages delivers GET /session/{sid}/message as frames.
func (s *Session) replayMessages(ctx context.Context, c *client, sid string) bool {
	msgs, err := c.messages(ctx, sid)
	if err != nil {
		return false
	}
	for _, m := range msgs {
		frame, _ := json.Marshal(map[string]any{"type": "message.updated", "properties": map[string]any{"sessionID": sid, "info": m.Info}})
		s.feed(frame)
		for _, p := range m.Parts {
			frame, _ := json.Marshal(map[string]any{"type": "message.part.updated", "properties": map[string]any{"sessionID": sid, "part": p}})
			s.feed(frame)
		}
	}
	return true
}

// prime feeds a resumed session's history to the normalizer without
// delivering it (the store has it from the earlier run), so later catch-ups
// know those messages, and forgets the last turn unless the session is busy.
func (s *Session) prime(ctx context.Context, c *client) {
	msgs, err := c.messages(ctx, s.id)
	if err != nil {
		return
	}
	for _, m := range msgs { // run's goroutine: the stream feeds the normalizer from it too
		frame, _ := json.Marshal(map[string]any{"type": "message.updated", "properties": map[string]any{"sessionID": s.id, "info": m.Info}})
		s.norm.Feed(frame)
		for _, p := range m.Parts {
			frame, _ := json.Marshal(map[string]any{"type": "message.part.updated", "properties": map[string]any{"sessionID": s.id, "part": p}})
			s.norm.Feed(frame)
		}
	}
	if st, err := c.status(ctx); err == nil && st[s.id] != "busy" && st[s.id] != "retry" {
		s.norm.ForgetTurn()
	}
}

// feed normalizes one frame of the stream and queues it, unless it belongs
// to another session or is server noise. It blocks while the stream is full
// (backpressure: the SSE response is not read meanwhile). Called from run
// only.
func (s *Session) feed(frame []byte) {
	if !s.mine(frame) {
		return
	}
	for _, ev := range s.stream.Frame(frame, time.Now()) {
		if ev.Request == nil {
			continue
		}
		switch ev.Type {
		case agent.EventPermissionRequest, agent.EventQuestion:
			s.open[ev.Request.RequestID] = true
		case agent.EventRequestResolved:
			delete(s.open, ev.Request.RequestID)
		}
	}
}

// mine reports whether a payload is for this session or one of its
// sub-agent sessions: events of another session are not, nor is server noise
// that names no session. A payload that does not parse is (the normalizer
// reports it). Called from run only.
func (s *Session) mine(frame []byte) bool {
	var env struct {
		Type       string         `json:"type"`
		Properties wireSessionRef `json:"properties"`
	}
	if err := json.Unmarshal(frame, &env); err != nil {
		return true
	}
	sid := sessionOf(env.Type, env.Properties)
	if sid == "" {
		return !IsNoise(env.Type) && !strings.HasPrefix(env.Type, "session.next.")
	}
	if sid == s.id || s.children[sid] {
		return true
	}
	// A sub-agent session (task tool) of ours, or of one of our sub-agents.
	if env.Type == "session.created" && env.Properties.Info != nil {
		if p := env.Properties.Info.ParentID; p == s.id || s.children[p] {
			s.children[sid] = true
			return true
		}
	}
	return false
}

func sessionOf(typ string, p wireSessionRef) string {
	switch {
	case p.SessionID != "":
		return p.SessionID
	case p.Info != nil && p.Info.SessionID != "":
		return p.Info.SessionID
	case p.Info != nil && strings.HasPrefix(typ, "session."):
		return p.Info.ID
	case p.Part != nil:
		return p.Part.SessionID
	}
	return ""
}

// setConnected records whether the event stream is up (and caught up).
func (s *Session) setConnected(up bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if up == s.up {
		return
	}
	s.up = up
	if up {
		close(s.upCh)
	} else {
		s.upCh = make(chan struct{})
	}
}

// waitConnected waits until the event stream is up, so a prompt is never
// sent while its events would be missed (after a server restart the
// catch-up must not race the new turn).
func (s *Session) waitConnected(ctx context.Context) error {
	s.mu.Lock()
	ch := s.upCh
	s.mu.Unlock()
	t := time.NewTimer(s.b.opt.connectTimeout())
	defer t.Stop()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.done:
		return agent.ErrSessionClosed
	case <-t.C:
		s.mu.Lock()
		last := s.lastErr
		s.mu.Unlock()
		return fmt.Errorf("opencode: event stream of session %s down for %s: %v", s.id, s.b.opt.connectTimeout(), last)
	}
}

// withdrawGone reports each open request the server no longer has pending
// (replied to by another client while the stream was down) as a reply:
// a synthesized permission.replied frame, stored like the catch-up's other
// frames, "reply" "gone" saying the answer is not known.
func (s *Session) withdrawGone(pending map[string]bool) {
	for _, id := range slices.Sorted(maps.Keys(s.open)) {
		if pending[id] {
			continue
		}
		frame, _ := json.Marshal(map[string]any{"type": "permission.replied",
			"properties": map[string]any{"sessionID": s.id, "requestID": id, "reply": "gone"}})
		s.feed(frame)
		delete(s.open, id) // also when the frame was not taken as this session's
	}
}
