package orchestrator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// FrameSink stores the frames of a source that is not an agent session —
// a worktree's setup command (issue 18) — into a task, exactly like agent
// output: each frame raw first, then the message f's normalizer makes of
// it (with the frames as its raw data, so re-normalization redoes it), in
// one transaction; then the message is emitted. It is safe for one writer.
type FrameSink struct {
	o      *Orchestrator
	taskID string
	format agent.Format
	norm   agent.Normalizer

	mu     sync.Mutex
	seq    int64
	raw    map[string]int // message id -> raw chunks stored (-1: rawData only)
	failed error
}

// FrameSink returns a sink writing frames of format f into task taskID.
// Opened while a start prepares the task's folder (the worktree's setup),
// it shows the task running meanwhile, so that it can be stopped.
func (o *Orchestrator) FrameSink(ctx context.Context, taskID string, f agent.Format) (*FrameSink, error) {
	o.settingUp(ctx, taskID)
	seq, err := store.NextRawSeq(ctx, o.db.R, taskID)
	if err != nil {
		return nil, err
	}
	return &FrameSink{o: o, taskID: taskID, format: f, norm: f.New(), seq: seq, raw: map[string]int{}}, nil
}

// Write stores one frame and its messages, then emits them. A store error
// is returned (and every later Write returns it): the caller shows it.
func (s *FrameSink) Write(ctx context.Context, frame []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return s.failed
	}
	evs := s.norm.Feed(frame)
	now := store.Now()
	var stored []agent.Message
	err := s.o.db.Tx(ctx, func(tx *txT) error {
		stored = stored[:0]
		if err := store.InsertRawFrame(ctx, tx, store.RawFrame{TaskID: s.taskID, Seq: s.seq, Format: s.format.Name, Data: frame, ReceivedAt: now}); err != nil {
			return err
		}
		for _, ev := range evs {
			if ev.Type != agent.EventMessage || ev.Message == nil {
				continue
			}
			m, err := s.storeMessage(ctx, tx, *ev.Message, frame, now)
			if err != nil {
				return err
			}
			stored = append(stored, m)
		}
		return nil
	})
	if err != nil {
		s.failed = fmt.Errorf("store the task's %s output: %w", s.format.Name, err)
		return s.failed
	}
	s.seq++
	for i := range stored {
		s.o.emitter(s.taskID).message(agent.Event{Type: agent.EventMessage, Message: &stored[i]}, time.Time{})
	}
	return nil
}

// storeMessage upserts m, its raw data growing by frame as one chunk.
func (s *FrameSink) storeMessage(ctx context.Context, tx *txT, m agent.Message, frame []byte, now int64) (agent.Message, error) {
	chunks, seen := s.raw[m.ID]
	w := store.MessageWrite{TaskID: s.taskID, Message: m, Format: s.format.Name, Version: s.o.version, Now: now}
	if !seen {
		w.Raw = frame
		s.raw[m.ID] = 0
	} else {
		chunk := append([]byte{'\n'}, frame...)
		if err := store.AppendMessageRaw(ctx, tx, s.taskID, m.ID, chunks, chunk); err != nil {
			return m, err
		}
		s.raw[m.ID] = chunks + 1
		w.KeepRaw = true
	}
	return store.UpsertMessage(ctx, tx, w)
}

// EmitTask re-sends task taskID's state to the window (after a change made
// outside a session, e.g. its setup status).
func (o *Orchestrator) EmitTask(ctx context.Context, taskID string) { o.emitTask(ctx, taskID) }
