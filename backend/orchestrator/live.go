package orchestrator

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// rowInterval: a streaming message's normalized row is written at most this
// often while deltas arrive, and at once at its end (the next whole message
// event, the turn's end, the session's end). Meanwhile the row is marked
// behind its raw frames (stored at once, every round) and Messages serves
// the message from memory; a row a crash left behind is re-normalized from
// its raw data at the next start (Recover), so nothing is lost.
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
	raw     []byte        // owned copy
	src     []byte        // the last whole message event's Raw as the normalizer gave it (not a copy): raw holds its bytes
	refs    store.RawRefs // the row's head raw data by reference (nil: rawData, or not known)
	chunks  int
	format  string
	created int64
	wrote   time.Time
	dirty   bool
	behind  bool // its row is marked behind its raw data (store.MarkMessageBehind)
	stored  bool // its row exists (written or loaded)
}

// liveSnap is a liveMsg's state before a group touched it, restored when the
// group's transaction fails (deltas are applied in memory as they are
// stored, and a retry stores them again).
type liveSnap struct {
	lm      *liveMsg
	acc     *agent.Accumulator
	mark    agent.AccMark
	raw     []byte
	src     []byte
	refs    store.RawRefs
	chunks  int
	created int64
	wrote   time.Time
	dirty   bool
	behind  bool
	stored  bool
}

func snapLive(lm *liveMsg) liveSnap {
	return liveSnap{lm: lm, acc: lm.acc, mark: lm.acc.Mark(), raw: lm.raw, src: lm.src, refs: lm.refs, chunks: lm.chunks, created: lm.created,
		wrote: lm.wrote, dirty: lm.dirty, behind: lm.behind, stored: lm.stored}
}

func (s liveSnap) restore() {
	s.acc.Reset(s.mark)
	*s.lm = liveMsg{id: s.lm.id, acc: s.acc, raw: s.raw, src: s.src, refs: s.refs, chunks: s.chunks, format: s.lm.format, created: s.created,
		wrote: s.wrote, dirty: s.dirty, behind: s.behind, stored: s.stored}
}

// liveFor returns the group's working copy of message id: the run's (its
// state saved for a rollback), else the stored message, else (unless
// mustExist) a new one. It is nil when mustExist and nothing is stored. A
// message the group removed comes back new.
func (g *group) liveFor(id string, mustExist bool) (*liveMsg, error) {
	lm, touched := g.live[id]
	if lm != nil {
		return lm, nil
	}
	if !touched {
		if lm := g.r.live[id]; lm != nil {
			g.snaps = append(g.snaps, snapLive(lm))
			g.live[id] = lm
			return lm, nil
		}
	}
	var m agent.Message
	var created int64
	var ok bool
	if err := g.r.reloadKnown(g.ctx, g.tx); err != nil {
		return nil, err
	}
	if !touched && (g.r.known == nil || g.r.known[id]) {
		var err error
		if m, created, ok, err = store.MessageByID(g.ctx, g.tx, g.r.taskID, id); err != nil {
			return nil, err
		}
	}
	lm = &liveMsg{id: id, format: g.format, created: created}
	switch {
	case ok:
		lm.acc, lm.stored = agent.NewAccumulator(m), true
		var err error
		if lm.raw, lm.chunks, err = store.MessageRaw(g.ctx, g.tx, g.r.taskID, id); err != nil {
			return nil, err
		}
	case mustExist:
		return nil, nil
	default:
		// Not stored yet: it will be inserted by this group, so its
		// createdAt is known (no second lookup when its timestamp is
		// stamped).
		lm.acc, lm.created = agent.NewAccumulator(agent.Message{ID: id}), g.now
	}
	g.live[id] = lm
	return lm, nil
}

// pendingRow is what a group owes the store for one message: written once,
// at the group's end (or before anything that reads it), whatever number of
// events changed it — the last version wins.
type pendingRow struct {
	lm      *liveMsg
	row     bool // a structural change: the row is written
	rewrite bool // rawData is rewritten whole (it does not extend what is stored)
	from    int  // lm.raw[from:] is not stored yet (appended as one chunk)
}

// pendingFor returns lm's pending write, made when the group first touches it.
func (g *group) pendingFor(lm *liveMsg) *pendingRow {
	if p := g.pending[lm.id]; p != nil && p.lm == lm {
		return p
	}
	p := &pendingRow{lm: lm, from: len(lm.raw)}
	g.pending[lm.id] = p
	g.pendingOrder = append(g.pendingOrder, lm.id)
	return p
}

// dropPending forgets message id's pending write (it was deleted).
func (g *group) dropPending(id string) {
	delete(g.pending, id)
}

// adoptRaw takes a whole message event's raw data: when it only extends
// what the message holds, the new frames are appended (stored as one chunk
// at the group's end, or with the whole when the group rewrites it anyway);
// else rawData is rewritten whole.
//
// lm.raw takes raw itself, capped, not a copy: an event's Raw is never
// changed once returned (agent.Event), and a delta's frame appended later
// is copied (appendRaw) unless the normalizer hands the whole raw data so
// far along with it.
func (g *group) adoptRaw(lm *liveMsg, raw []byte) {
	p := g.pendingFor(lm)
	p.row = true
	if !g.extends(lm, raw) {
		p.rewrite = true
	}
	lm.raw, lm.src = raw[:len(raw):len(raw)], raw
}

// extends tells whether raw starts with lm.raw, reading only what came
// since the last whole event when raw starts where that event's Raw
// (lm.src) started and is no shorter: those bytes are the same memory, and
// lm.raw starts with them (only delta frames were appended since).
// Normalizers hand out Raw as capped slices of a buffer they only append
// to and never change an event's bytes once it is returned (agent.Event),
// so a message re-emitted whole at every frame (Claude's thinking
// estimate, an ACP turn at each tool update) costs its new frames, not a
// comparison of everything so far.
func (g *group) extends(lm *liveMsg, raw []byte) bool {
	if len(lm.raw) == 0 || len(raw) < len(lm.raw) {
		return false
	}
	from := 0
	if len(lm.src) > 0 && len(lm.src) <= len(lm.raw) && unsafe.SliceData(raw) == unsafe.SliceData(lm.src) {
		from = len(lm.src)
	}
	return g.sameBytes(raw[from:len(lm.raw)], lm.raw[from:])
}

// sameBytes compares a and b, counting the bytes read (tests).
func (g *group) sameBytes(a, b []byte) bool {
	g.r.o.rawCompared.Add(int64(len(b)))
	return bytes.Equal(a, b)
}

// roomFor returns b with room for n more bytes, doubling its capacity when
// it grows (append grows a large slice by only 1.25×: a long message's raw
// data, extended frame by frame, cost several times its size).
func roomFor(b []byte, n int) []byte {
	if len(b)+n <= cap(b) {
		return b
	}
	grown := make([]byte, len(b), max(2*cap(b), len(b)+n, 1024))
	copy(grown, b)
	return grown
}

// appendRaw appends a delta's frame to the message's raw data (frames are
// newline-separated, as the normalizers join them); it is stored with the
// group. When whole (the delta's MessageRaw) is lm.raw and the frame in the
// same memory, lm.raw takes it and nothing is copied.
func (g *group) appendRaw(lm *liveMsg, frame, whole []byte) {
	if len(frame) == 0 {
		return
	}
	g.pendingFor(lm)
	if g.takesWhole(lm.raw, frame, whole) {
		lm.raw = whole[:len(whole):len(whole)]
		return
	}
	g.r.o.rawCopied.Add(int64(len(frame)))
	lm.raw = roomFor(lm.raw, 1+len(frame))
	if len(lm.raw) > 0 && lm.raw[len(lm.raw)-1] != '\n' {
		lm.raw = append(lm.raw, '\n')
	}
	lm.raw = append(lm.raw, frame...)
}

// takesWhole tells whether whole is raw, a newline and frame: then it can
// stand for raw extended by frame. raw and whole starting at the same byte
// are the same memory, so only their tails are compared; else (the
// normalizer's buffer moved as it grew, a geometric number of times, or raw
// was a copy) raw is compared once, and the next deltas share its memory.
func (g *group) takesWhole(raw, frame, whole []byte) bool {
	n := len(raw)
	if n == 0 || len(whole) != n+1+len(frame) || whole[n] != '\n' || !bytes.Equal(whole[n+1:], frame) {
		return false
	}
	return unsafe.SliceData(whole) == unsafe.SliceData(raw) || g.sameBytes(whole[:n], raw)
}

// flushPending stores what the group owes for each message it touched, in
// the order it first touched them (new rows take their messageIndex in
// that order): the new raw frames as one chunk, and the row when it
// changed structurally, when force, or when its deltas are rowInterval old.
func (g *group) flushPending(force bool) error {
	for _, id := range g.pendingOrder {
		p := g.pending[id]
		if p == nil {
			continue
		}
		delete(g.pending, id)
		if err := g.storePending(p, force); err != nil {
			return err
		}
	}
	g.pendingOrder = g.pendingOrder[:0]
	return g.insertNew()
}

// insertNew inserts the new rows writeLive left to the end of the flush,
// several per statement, in the order they were written.
func (g *group) insertNew() error {
	if len(g.inserts) == 0 {
		return nil
	}
	ws := g.inserts
	g.inserts = g.inserts[:0]
	return store.InsertNewMessages(g.ctx, g.tx, g.r.taskID, ws)
}

func (g *group) storePending(p *pendingRow, force bool) error {
	lm := p.lm
	writeRow := p.row || (lm.dirty && (force || time.Since(lm.wrote) >= rowInterval))
	if p.rewrite {
		if lm.chunks > 0 {
			if err := store.ClearMessageRaw(g.ctx, g.tx, g.r.taskID, lm.id); err != nil {
				return err
			}
			lm.chunks = 0
		}
		lm.refs = nil
		if refs, ok := g.refsOf(lm.raw); ok {
			lm.refs = refs
			g.lead(refs[0][0], lm.raw)
			return g.writeLive(lm, nil, lm.refs, false)
		}
		return g.writeLive(lm, lm.raw, nil, false)
	}
	if len(lm.raw) > p.from {
		if err := g.appendStored(p, writeRow); err != nil {
			return err
		}
	}
	if writeRow {
		return g.writeLive(lm, nil, lm.refs, true)
	}
	return g.markBehind(lm)
}

// markBehind marks lm's row behind its raw data once while lm waits for its
// row write (a crash then leaves a row the next start repairs).
func (g *group) markBehind(lm *liveMsg) error {
	if !lm.dirty || lm.behind {
		return nil
	}
	if err := store.MarkMessageBehind(g.ctx, g.tx, g.r.taskID, lm.id); err != nil {
		return err
	}
	lm.behind = true
	return nil
}

// maxHeadRanges bounds the frame ranges a row's head names (rawRefs): the
// head is rewritten with the row, so a message whose frames are not
// consecutive (Claude's thinking estimate: every other line) and whose row
// is written at every frame would rewrite all its ranges so far each time;
// past the bound its frames go to chunks, one row each, written once.
const maxHeadRanges = 64

// appendStored stores lm.raw[p.from:]: as references to this group's raw
// frames when it is exactly them (in the row's head when the row is written
// anyway, its raw data so far is references only and the head stays within
// maxHeadRanges), else as a copy.
func (g *group) appendStored(p *pendingRow, writeRow bool) error {
	lm := p.lm
	add, sep := lm.raw[p.from:], []byte(nil)
	if p.from > 0 && len(add) > 0 && add[0] == '\n' {
		add, sep = add[1:], []byte{'\n'}
	}
	if refs, ok := g.refsOf(add); ok && sep != nil {
		if writeRow && lm.chunks == 0 && len(lm.refs) > 0 && len(lm.refs)+len(refs) <= maxHeadRanges {
			lm.refs = lm.refs.Concat(refs)
			return nil
		}
		if err := store.AppendMessageRawRefs(g.ctx, g.tx, g.r.taskID, lm.id, lm.chunks, sep, refs); err != nil {
			return err
		}
	} else if err := store.AppendMessageRaw(g.ctx, g.tx, g.r.taskID, lm.id, lm.chunks, lm.raw[p.from:]); err != nil {
		return err
	}
	lm.chunks++
	return nil
}

// recentFrames: how many of its last raw frames a run keeps to name them
// in messages' raw data (a message's frames are close to each other).
const recentFrames = 64

// refsOf returns b as references to recent raw frames (stored plain) when
// b is exactly such frames joined by newlines, in increasing seq order.
func (g *group) refsOf(b []byte) (store.RawRefs, bool) {
	if len(b) == 0 {
		return nil, false
	}
	lines := bytes.Split(b, []byte{'\n'})
	seqs := make([]int64, len(lines))
	next := g.maxSeq
	for i := len(lines) - 1; i >= 0; i-- {
		s, ok := g.findFrame(lines[i], next)
		if !ok {
			return nil, false
		}
		seqs[i], next = s, s-1
	}
	var refs store.RawRefs
	for _, s := range seqs {
		refs = refs.Add(s)
	}
	return refs, true
}

// findFrame returns the highest seq ≤ max among the recent frames whose
// bytes are line.
func (g *group) findFrame(line []byte, max int64) (int64, bool) {
	for s := max; s >= g.r.nextSeq-recentFrames && s > 0; s-- {
		f, ok := g.frames[s]
		if !ok {
			f, ok = g.r.recent[s]
		}
		if ok && len(f) == len(line) && bytes.Equal(f, line) {
			return s, true
		}
	}
	var lead int64
	for _, l := range g.r.leads {
		if l.seq <= max && l.seq > lead && bytes.Equal(l.frame, line) {
			lead = l.seq
		}
	}
	return lead, lead > 0
}

// maxLeads bounds run.leads.
const maxLeads = 8

// lead notes that a message's raw data raw, named from the start, begins
// with frame seq (kept in run.leads once the group commits).
func (g *group) lead(seq int64, raw []byte) {
	first, _, _ := bytes.Cut(raw, []byte{'\n'})
	g.leads = append(g.leads, leadFrame{seq, first})
}

// leadFrame is a frame that began a message's raw data.
type leadFrame struct {
	seq   int64
	frame []byte
}

// keepLeads adds a committed group's leads to the run's, each in place of
// the oldest (an empty slot first).
func (r *run) keepLeads(leads []leadFrame) {
next:
	for _, l := range leads {
		oldest := 0
		for i, k := range r.leads {
			if k.seq == l.seq {
				continue next
			}
			if k.seq < r.leads[oldest].seq {
				oldest = i
			}
		}
		if l.seq > r.leads[oldest].seq {
			r.leads[oldest] = leadFrame{l.seq, bytes.Clone(l.frame)} // not a slice of a relayed read buffer
		}
	}
}

// reloadKnown loads the ids of the task's stored messages again when the
// idle trim dropped them (a superset is safe: a known id only costs a
// lookup, which finds a rolled-back one missing).
func (r *run) reloadKnown(ctx context.Context, tx store.SQLRunner) error {
	if !r.knownDropped {
		return nil
	}
	known, err := store.MessageIDs(ctx, tx, r.taskID)
	if err != nil {
		return fmt.Errorf("reloading the task's message ids: %w", err)
	}
	r.known, r.knownDropped = known, false
	return nil
}

// keepRecent adds a committed group's frames to the run's recent frames
// and forgets those older than recentFrames before next.
func (r *run) keepRecent(frames map[int64][]byte, next int64) {
	if r.recent == nil {
		r.recent = map[int64][]byte{}
	}
	for s, f := range frames {
		if s > next-1-recentFrames {
			r.recent[s] = f // a batch's frame is its own (agent.Batch), never reused
		}
	}
	for s := range r.recent {
		if s <= next-1-recentFrames {
			delete(r.recent, s)
		}
	}
}

// asStored is lm's message as its row holds it once written (an empty
// timestamp stamped with the row's createdAt, or now when not stored yet).
func (lm *liveMsg) asStored(now int64) agent.Message {
	m := lm.acc.Message()
	if m.Parts == nil {
		m.Parts = []agent.Part{}
	}
	created := lm.created
	if created == 0 {
		created = now
	}
	store.StampTimestamp(&m, created)
	return m
}

// writeLive writes the message's normalized row (raw: its rawData when
// !keep; refs, when not empty, its head raw data by reference instead).
func (g *group) writeLive(lm *liveMsg, raw []byte, refs store.RawRefs, keep bool) error {
	w := store.MessageWrite{TaskID: g.r.taskID, Message: lm.acc.Message(), Raw: raw, RawRefs: refs, KeepRaw: keep,
		Format: lm.format, Version: g.r.o.version, Now: g.now, CreatedAt: lm.created, Exists: lm.stored}
	if !lm.stored && !keep && lm.created != 0 {
		// A new row: inserted with the flush's other new rows (insertNew).
		g.inserts = append(g.inserts, w)
	} else {
		_, created, err := store.UpsertMessageCreated(g.ctx, g.tx, w)
		if err != nil {
			return err
		}
		if created != 0 {
			lm.created = created
		}
	}
	lm.wrote, lm.dirty, lm.behind, lm.stored = time.Now(), false, false, true
	return nil
}

// flushAllLive writes every message with deltas not yet in its row, and
// everything else the group owes.
func (g *group) flushAllLive() error {
	for _, id := range g.r.liveOrder {
		if lm := g.r.live[id]; lm != nil && lm.dirty {
			if _, ok := g.live[id]; !ok {
				g.snaps = append(g.snaps, snapLive(lm))
				g.live[id] = lm
			}
		}
	}
	for _, id := range sortedDirty(g.live) {
		g.pendingFor(g.live[id])
	}
	return g.flushPending(true)
}

// sortedDirty lists the dirty messages of live in a stable order.
func sortedDirty(live map[string]*liveMsg) []string {
	var ids []string
	for id, lm := range live {
		if lm != nil && lm.dirty {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
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
