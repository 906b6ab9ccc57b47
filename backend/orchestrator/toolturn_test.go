package orchestrator

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
	"github.com/jean-claude/jean-claude/backend/store"
)

// TestToolTurnStoredLinear: a long turn of tool calls (100 calls, each with
// a sentence and a 2 KB result) on ACP and Gemini, through the real
// normalizers and the orchestrator: what the window gets stays within a few
// times the turn (each step is its own message, emitted whole only at its
// own changes; the turn kept as one message emitted it whole at every tool
// state, ~200× the turn), and every stored message re-normalizes from its
// stored raw data to what is stored.
func TestToolTurnStoredLinear(t *testing.T) {
	for _, c := range []struct {
		f    agent.Format
		turn func(total, delta int) agenttest.Reply
	}{{acp.Format(), agenttest.ACPToolTurn}, {gemini.Format(), agenttest.GeminiToolTurn}} {
		t.Run(c.f.Name, func(t *testing.T) {
			h, s := startT1(t, Options{Formats: agent.NewFormats(c.f), Coalesce: -1})
			turn := c.turn(200_000, 0)
			n := c.f.New()
			frameBytes := 0
			for _, fr := range turn.Frames {
				frameBytes += len(fr) + 1
				s.events <- agent.Batch{Frame: fr, Format: c.f.Name, Events: n.Feed(fr), ReceivedAt: time.Now()}
			}
			waitStatus(t, h.db, "t1", store.StatusCompleted)
			waitFor(t, "complete emitted", func() bool {
				evs := h.rec.agentEvents("t1")
				return len(evs) > 0 && evs[len(evs)-1].Event.Type == agent.EventComplete
			})
			emitted := 0
			for _, p := range h.rec.agentEvents("t1") {
				b, err := json.Marshal(p.Event)
				if err != nil {
					t.Fatal(err)
				}
				emitted += len(b)
			}
			t.Logf("%s: %d tool calls, %d bytes of text and results, %d bytes of frames; emitted %d bytes (%.2f×)",
				c.f.Name, 100, turn.Bytes, frameBytes, emitted, float64(emitted)/float64(turn.Bytes))
			if emitted > 4*turn.Bytes {
				t.Errorf("emitted %d bytes for a turn of %d (%.1f×, want ≤ 4×)", emitted, turn.Bytes, float64(emitted)/float64(turn.Bytes))
			}
			checkStoredRebuild(t, h, c.f, frameBytes)
		})
	}
}

// checkStoredRebuild: every stored message with raw data re-normalizes
// from it to what is stored, and the raw data of all of them is at most 4×
// the frames, of which at most 1.5× copied (the rest names stored frames).
func checkStoredRebuild(t *testing.T, h *harness, f agent.Format, frameBytes int) {
	t.Helper()
	ctx := context.Background()
	msgs, err := store.Messages(ctx, h.db.R, "t1")
	if err != nil {
		t.Fatal(err)
	}
	rawBytes, steps := 0, 0
	for _, m := range msgs {
		raw, _, err := store.MessageRaw(ctx, h.db.R, "t1", m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) == 0 {
			continue // the user's prompt, stored by the orchestrator
		}
		if m.Role == agent.RoleAssistant {
			steps++
		}
		rawBytes += len(raw)
		re, err := agent.Rebuild(f, raw, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		re.Timestamp = m.Timestamp
		if re.Parts == nil {
			re.Parts = []agent.Part{} // as Renormalize stores it
		}
		live, _ := json.Marshal(m)
		again, _ := json.Marshal(re)
		if d := cmp.Diff(string(live), string(again)); d != "" {
			t.Errorf("message %s re-normalized differs from live (-live +re):\n%s", m.ID, d)
		}
	}
	var copied int
	if err := h.db.R.QueryRow(`SELECT coalesce((SELECT sum(length(rawData)) FROM agent_messages WHERE taskId = 't1'), 0)
		+ coalesce((SELECT sum(length(data)) FROM message_raw_chunks WHERE taskId = 't1'), 0)`).Scan(&copied); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d messages (%d steps), raw data %d bytes (%.2f× the frames), of which %d copied (%.2f×), the rest naming stored frames",
		len(msgs), steps, rawBytes, float64(rawBytes)/float64(frameBytes), copied, float64(copied)/float64(frameBytes))
	if steps < 100 || rawBytes > 4*frameBytes {
		t.Errorf("%d steps, raw data %d bytes for %d bytes of frames: want 100 steps and ≤ 4×", steps, rawBytes, frameBytes)
	}
	// The result's raw data is the turn, copied once. A step's starts with
	// the turn's first frame (run.leads) and the frame that ended the step
	// before, both named, not copied.
	if copied > frameBytes*3/2 {
		t.Errorf("copied %d bytes of raw data for %d bytes of frames (%.2f×, want ≤ 1.5×)", copied, frameBytes, float64(copied)/float64(frameBytes))
	}
	h.rec.checkStored(t)
}
