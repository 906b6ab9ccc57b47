package orchestrator

import (
	"bytes"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// rowInterval: a streaming message's normalized row is written at most this
// often while deltas arrive, and at once at its end (the next whole message
// event, the turn's end, the session's end).
const rowInterval = 100 * time.Millisecond

// maxLive bounds how many messages a run keeps in memory for streaming; an
// evicted one is reloaded from the store if it streams again.
const maxLive = 16

// liveMsg is the orchestrator's in-memory copy of a message that streams:
// the last whole message with the deltas since applied, and its raw data as
// stored (rawData + chunks) to tell when a new message event only appends
// frames (then only the new frames are stored: linear storage).
type liveMsg struct {
	id      string
	acc     *agent.Accumulator
	raw     []byte // owned copy
	chunks  int
	format  string
	created int64
	wrote   time.Time
	dirty   bool
}

// liveSnap is a liveMsg's state before a group touched it, restored when the
// group's transaction fails (deltas are applied in memory as they are
// stored, and a retry stores them again).
type liveSnap struct {
	lm      *liveMsg
	acc     *agent.Accumulator
	mark    agent.AccMark
	raw     []byte
	chunks  int
	created int64
	wrote   time.Time
	dirty   bool
}

func snapLive(lm *liveMsg) liveSnap {
	return liveSnap{lm: lm, acc: lm.acc, mark: lm.acc.Mark(), raw: lm.raw, chunks: lm.chunks, created: lm.created,
		wrote: lm.wrote, dirty: lm.dirty}
}

func (s liveSnap) restore() {
	s.acc.Reset(s.mark)
	*s.lm = liveMsg{id: s.lm.id, acc: s.acc, raw: s.raw, chunks: s.chunks, format: s.lm.format, created: s.created,
		wrote: s.wrote, dirty: s.dirty}
}

// liveFor returns the group's working copy of message id: the run's (its
// state saved for a rollback), else the stored message, else (unless
// mustExist) a new one. It is nil when mustExist and nothing is stored.
func (g *group) liveFor(id string, mustExist bool) (*liveMsg, error) {
	if lm, ok := g.live[id]; ok && lm != nil {
		return lm, nil
	}
	if lm := g.r.live[id]; lm != nil {
		g.snaps = append(g.snaps, snapLive(lm))
		g.live[id] = lm
		return lm, nil
	}
	m, created, ok, err := store.MessageByID(g.ctx, g.tx, g.r.taskID, id)
	if err != nil {
		return nil, err
	}
	lm := &liveMsg{id: id, format: g.format, created: created}
	switch {
	case ok:
		lm.acc = agent.NewAccumulator(m)
		if lm.raw, lm.chunks, err = store.MessageRaw(g.ctx, g.tx, g.r.taskID, id); err != nil {
			return nil, err
		}
	case mustExist:
		return nil, nil
	default:
		// Not stored yet: it will be inserted now, so its createdAt is
		// known (no second lookup when its timestamp is stamped).
		lm.acc, lm.created = agent.NewAccumulator(agent.Message{ID: id}), g.now
	}
	g.live[id] = lm
	return lm, nil
}

// adoptRaw stores a whole message event's raw data: when it only extends
// what is stored, the new frames become one chunk (keep = true: the row's
// rawData stays); else the caller rewrites rawData whole.
func (lm *liveMsg) adoptRaw(g *group, raw []byte) (keep bool, err error) {
	if len(lm.raw) > 0 && len(raw) >= len(lm.raw) && bytes.HasPrefix(raw, lm.raw) {
		if suffix := raw[len(lm.raw):]; len(suffix) > 0 {
			if err := store.AppendMessageRaw(g.ctx, g.tx, g.r.taskID, lm.id, lm.chunks, suffix); err != nil {
				return false, err
			}
			lm.chunks++
			lm.raw = append(lm.raw, suffix...)
		}
		return true, nil
	}
	if lm.chunks > 0 {
		if err := store.ClearMessageRaw(g.ctx, g.tx, g.r.taskID, lm.id); err != nil {
			return false, err
		}
	}
	lm.raw, lm.chunks = bytes.Clone(raw), 0
	return false, nil
}

// appendRaw stores a delta's frame as the message's next raw chunk (frames
// are newline-separated, as the normalizers join them).
func (lm *liveMsg) appendRaw(g *group, frame []byte) error {
	if len(frame) == 0 {
		return nil
	}
	chunk := frame
	if len(lm.raw) > 0 && lm.raw[len(lm.raw)-1] != '\n' {
		chunk = append([]byte{'\n'}, frame...)
	}
	if err := store.AppendMessageRaw(g.ctx, g.tx, g.r.taskID, lm.id, lm.chunks, chunk); err != nil {
		return err
	}
	lm.chunks++
	lm.raw = append(lm.raw, chunk...)
	return nil
}

// writeLive writes the message's normalized row (raw: its rawData when
// !keep) and returns it as stored.
func (g *group) writeLive(lm *liveMsg, raw []byte, keep bool) (agent.Message, error) {
	m, created, err := store.UpsertMessageCreated(g.ctx, g.tx, store.MessageWrite{TaskID: g.r.taskID, Message: lm.acc.Message(),
		Raw: raw, KeepRaw: keep, Format: lm.format, Version: g.r.o.version, Now: g.now, CreatedAt: lm.created})
	if err != nil {
		return m, err
	}
	if created != 0 {
		lm.created = created
	}
	lm.wrote, lm.dirty = time.Now(), false
	g.flushes[lm.id] = true
	return m, nil
}

// flushAllLive writes every message with deltas not yet in its row.
func (g *group) flushAllLive() error {
	for _, id := range g.r.liveOrder {
		if lm := g.r.live[id]; lm != nil && lm.dirty {
			if _, ok := g.live[id]; !ok {
				g.snaps = append(g.snaps, snapLive(lm))
				g.live[id] = lm
			}
		}
	}
	for _, lm := range g.live {
		if lm != nil && lm.dirty {
			if _, err := g.writeLive(lm, nil, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// evictLive keeps at most maxLive messages in memory, never a dirty one.
func (r *run) evictLive() {
	if len(r.liveOrder) < 4*maxLive {
		return
	}
	seen := map[string]bool{}
	var keep []string
	for i := len(r.liveOrder) - 1; i >= 0; i-- {
		id := r.liveOrder[i]
		if seen[id] || r.live[id] == nil {
			continue
		}
		seen[id] = true
		if len(keep) < maxLive || r.live[id].dirty {
			keep = append(keep, id)
		} else {
			delete(r.live, id)
		}
	}
	r.liveOrder = r.liveOrder[:0]
	for i := len(keep) - 1; i >= 0; i-- {
		r.liveOrder = append(r.liveOrder, keep[i])
	}
}

// anyDirty reports whether a live message waits for its row write.
func (r *run) anyDirty() bool {
	for _, lm := range r.live {
		if lm.dirty {
			return true
		}
	}
	return false
}
