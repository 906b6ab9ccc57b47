package orchestrator

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/store"
)

// deltaNorm is a tiny streaming format: {"id":..,"text":..} starts message
// id (a whole message event), {"id":..,"delta":..} appends to its text (a
// delta event), {"id":..,"tool":..} adds a tool part (structural: whole).
// Message Raw is every frame of the message, newline-separated, like the
// real normalizers.
type deltaNorm struct {
	msgs map[string]*agent.Message
	raw  map[string][]byte
	// share: a delta's Raw is a slice of the message's raw data, handed
	// along as MessageRaw (as Claude's normalizer does).
	share bool
}

type deltaFrame struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Delta string `json:"delta"`
	Tool  string `json:"tool"`
	Done  bool   `json:"done"`
}

func newDeltaNorm() agent.Normalizer {
	return &deltaNorm{msgs: map[string]*agent.Message{}, raw: map[string][]byte{}}
}

func (n *deltaNorm) Feed(frame []byte) []agent.Event {
	var f deltaFrame
	if err := json.Unmarshal(frame, &f); err != nil {
		return []agent.Event{{Type: agent.EventError, Error: err.Error(), Raw: frame}}
	}
	if f.Done {
		return []agent.Event{{Type: agent.EventComplete, Result: &agent.Result{Text: "done"}}}
	}
	n.raw[f.ID] = agent.AppendFrame(n.raw[f.ID], frame)
	r := n.raw[f.ID]
	m := n.msgs[f.ID]
	switch {
	case m == nil:
		m = &agent.Message{ID: f.ID, Role: agent.RoleAssistant, Parts: []agent.Part{{Type: agent.PartText, Text: f.Text}}}
		n.msgs[f.ID] = m
	case f.Delta != "":
		m.Parts[len(m.Parts)-1].Text += f.Delta
		ev := agent.Event{Type: agent.EventDelta, MessageID: f.ID, Raw: frame,
			Delta: &agent.Delta{Part: len(m.Parts) - 1, Field: agent.DeltaText, Text: f.Delta}}
		if n.share {
			ev.Raw, ev.MessageRaw = r[len(r)-len(frame):len(r):len(r)], r[:len(r):len(r)]
		}
		return []agent.Event{ev}
	default:
		m.Parts = append(m.Parts, agent.Part{Type: agent.PartToolUse, ToolID: f.Tool, ToolName: "Bash"},
			agent.Part{Type: agent.PartText})
	}
	cp := *m
	cp.Parts = append([]agent.Part(nil), m.Parts...)
	return []agent.Event{{Type: agent.EventMessage, Message: &cp, Raw: r[:len(r):len(r)]}} // append-only, as the real ones
}

func (n *deltaNorm) Flush() []agent.Event { return nil }

var deltaFormat = agent.Format{Name: "delta-test", New: newDeltaNorm}

// streamSession sends frames through a real normalizer like a backend does.
func streamSession(s *fakeSession, n agent.Normalizer, frames ...string) {
	for _, f := range frames {
		s.events <- agent.Batch{Frame: []byte(f), Format: deltaFormat.Name, Events: n.Feed([]byte(f)), ReceivedAt: time.Now()}
	}
}

// TestDeltasStoredLinearAndRenormalized: a reply streamed in deltas is
// stored whole (row written at structural changes, at most every 100 ms and
// at the end), its deltas are emitted without re-emitting the message, its
// raw data grows by chunks, and re-normalizing it from its raw data gives
// exactly the stored message.
func TestDeltasStoredLinearAndRenormalized(t *testing.T) {
	h, s := startT1(t, Options{Formats: agent.NewFormats(deltaFormat), Coalesce: -1})
	ctx := context.Background()
	n := newDeltaNorm()
	frames := []string{`{"id":"a1","text":"Hel"}`}
	var want strings.Builder
	want.WriteString("Hel")
	for i := range 500 {
		d := fmt.Sprintf("lo %d, ", i)
		want.WriteString(d)
		frames = append(frames, fmt.Sprintf(`{"id":"a1","delta":%q}`, d))
	}
	frames = append(frames, `{"id":"a1","tool":"t-1"}`, `{"id":"a1","delta":"after the tool"}`, `{"done":true}`)
	streamSession(s, n, frames...)
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	waitFor(t, "complete emitted", func() bool { // stored precedes emitted
		evs := h.rec.agentEvents("t1")
		return len(evs) > 0 && evs[len(evs)-1].Event.Type == agent.EventComplete
	})

	msgs, err := store.Messages(ctx, h.db.R, "t1")
	if err != nil {
		t.Fatal(err)
	}
	got := msgs[len(msgs)-1]
	if got.Parts[0].Text != want.String() || got.Parts[2].Text != "after the tool" {
		t.Fatalf("stored message parts: %+v", got.Parts)
	}
	var deltas, whole int
	for _, p := range h.rec.agentEvents("t1") {
		switch {
		case p.Event.Type == agent.EventDelta:
			deltas++
		case p.Event.Type == agent.EventMessage && p.Event.Message.ID == "a1":
			whole++
		}
	}
	if deltas != 501 || whole != 2 {
		t.Errorf("emitted %d deltas and %d whole messages, want 501 and 2", deltas, whole)
	}
	// Linear raw, by reference (migration 0125): the row's head names the
	// frames of the group that first stored the message (rawData NULL,
	// rawRefs set); every later group appended one chunk naming its
	// frames (a group writes each message once), so nothing was rewritten,
	// and no frame's bytes are stored a second time: the chunks hold only
	// the newline before their frames.
	var head sql.NullString
	var refs string
	if err := h.db.R.QueryRow(`SELECT rawData, rawRefs FROM agent_messages WHERE taskId='t1' AND messageId='a1'`).Scan(&head, &refs); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(frames[:len(frames)-1], "\n")
	if head.Valid || !strings.HasPrefix(refs, "[[") {
		t.Errorf("rawData = %.100q, rawRefs = %.100q: want the first group's frames by reference", head.String, refs)
	}
	raw, chunks, err := store.MessageRaw(ctx, h.db.R, "t1", "a1")
	if err != nil {
		t.Fatal(err)
	}
	if chunks < 1 || chunks > 502 || string(raw) != joined {
		t.Errorf("raw data: %d chunks, %d bytes", chunks, len(raw))
	}
	var stored int
	if err := h.db.R.QueryRow(`SELECT coalesce(length(rawData), 0) + (SELECT coalesce(sum(length(data)), 0) FROM message_raw_chunks
		WHERE taskId='t1' AND messageId='a1') FROM agent_messages WHERE taskId='t1' AND messageId='a1'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored > chunks {
		t.Errorf("raw bytes copied into the message = %d, want at most %d (one newline per chunk: frames by reference)", stored, chunks)
	}
	// Re-normalization reproduces exactly what live stored.
	checkRenormalized(t, got, raw)
	h.rec.checkStored(t)
}

// TestStoreFailureHoldsAndResumes: while the store refuses writes (an
// injected "database or disk is full" on raw frames) the task shows
// store-error with the store's reason, the session's batches are taken no
// further than the failing job's maxGroup (the agent is held), and once
// writes work again every frame is stored, in order, none lost.
func TestStoreFailureHoldsAndResumes(t *testing.T) {
	h, s := startT1(t, Options{Coalesce: -1})
	ctx := context.Background()
	s.send(msgEv("a0", agent.RoleAssistant, "before"))
	waitFor(t, "first frame stored", func() bool { n, _ := store.CountRawFrames(ctx, h.db.R, "t1"); return n == 1 })
	// Frames are stored as rows (a lone one) and as runs (several).
	if _, err := h.db.W.Exec(`CREATE TRIGGER full BEFORE INSERT ON raw_frames BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;
		CREATE TRIGGER full_runs BEFORE INSERT ON raw_frame_runs BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	// A failure below must not leave the store failing: Close would wait
	// for the retrying loop until the test binary's timeout.
	t.Cleanup(func() { _, _ = h.db.W.Exec(`DROP TRIGGER IF EXISTS full; DROP TRIGGER IF EXISTS full_runs`) })
	const total = 1000
	sent := make(chan int, 1)
	go func() {
		i := 1
		for ; i < total; i++ {
			select {
			case s.events <- agent.Batch{Frame: []byte(fmt.Sprintf(`{"n":%d}`, i)), Format: "fake", Events: []agent.Event{msgEv(fmt.Sprintf("m%d", i), agent.RoleAssistant, "x")}, ReceivedAt: time.Now()}:
			case <-time.After(500 * time.Millisecond):
				sent <- i // held: the orchestrator takes nothing more
				return
			}
		}
		sent <- i
	}()
	waitFor(t, "store-error shown", func() bool { return lastTaskStatus(h.rec, "t1") == StatusStoreError })
	held := <-sent
	if held >= total {
		t.Fatalf("all %d batches were taken while the store failed", total)
	}
	if bound := maxGroup + cap(s.events) + 1; held > bound {
		t.Fatalf("%d batches taken while the store failed, more than %d (a job's maxGroup and the session's buffer)", held-1, bound-1)
	}
	if n, _ := store.CountRawFrames(ctx, h.db.R, "t1"); n != 1 {
		t.Fatalf("%d frames stored while failing", n)
	}
	if _, err := h.db.W.Exec(`DROP TRIGGER full; DROP TRIGGER full_runs`); err != nil {
		t.Fatal(err)
	}
	for i := held; i < total; i++ {
		s.events <- agent.Batch{Frame: []byte(fmt.Sprintf(`{"n":%d}`, i)), Format: "fake", ReceivedAt: time.Now()}
	}
	waitFor(t, "every frame stored", func() bool { n, _ := store.CountRawFrames(ctx, h.db.R, "t1"); return n == total })
	waitFor(t, "store-error cleared", func() bool { return lastTaskStatus(h.rec, "t1") == store.StatusRunning })
	seq := int64(0)
	for f, err := range store.RawFrames(ctx, h.db.R, "t1") {
		if err != nil {
			t.Fatal(err)
		}
		if seq > 0 && f.Seq != seq+1 {
			t.Fatalf("seq %d after %d", f.Seq, seq)
		}
		if seq > 0 && string(f.Data) != fmt.Sprintf(`{"n":%d}`, f.Seq-1) {
			t.Fatalf("frame %d = %s", f.Seq, f.Data)
		}
		seq = f.Seq
	}
}

func lastTaskStatus(rec *recorder, id string) store.TaskStatus {
	var st store.TaskStatus
	for _, e := range rec.all() {
		if e.Name != EventTaskUpdated {
			continue
		}
		if tv, ok := e.Payload.(store.TaskRun); ok && tv.ID == id {
			st = tv.Status
		}
	}
	return st
}

// TestPermissionAnswerNotSentWhenCommitFails: commit, then act.
func TestPermissionAnswerNotSentWhenCommitFails(t *testing.T) {
	h, s := startT1(t, Options{Coalesce: -1})
	ctx := context.Background()
	s.send(permEv("r1", "Bash", "ls"))
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	if _, err := h.db.W.Exec(`CREATE TRIGGER full BEFORE INSERT ON permission_decisions BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	err := h.o.RespondToPermission(ctx, "t1", "r1", PermissionAnswer{Behavior: agent.Allow})
	if err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("answer with a failing store: %v", err)
	}
	if calls := s.callsOf("RespondToPermission"); len(calls) != 0 {
		t.Fatalf("sent to the agent although not stored: %v", calls)
	}
	if err := h.o.SetMode(ctx, "t1", agent.ModePlan); err != nil {
		t.Fatal(err) // modes are another table: this one works
	}
	if _, err := h.db.W.Exec(`CREATE TRIGGER nomode BEFORE UPDATE OF interactionMode ON tasks BEGIN SELECT RAISE(ABORT, 'read-only'); END`); err != nil {
		t.Fatal(err)
	}
	if err := h.o.SetMode(ctx, "t1", agent.ModeBypass); err == nil {
		t.Fatal("mode change stored on a failing store")
	}
	if calls := s.callsOf("SetMode"); len(calls) != 1 {
		t.Fatalf("SetMode sent %d times, want once (the stored one)", len(calls))
	}
	if _, err := h.db.W.Exec(`DROP TRIGGER full`); err != nil {
		t.Fatal(err)
	}
	if err := h.o.RespondToPermission(ctx, "t1", "r1", PermissionAnswer{Behavior: agent.Allow}); err != nil {
		t.Fatal(err)
	}
	if calls := s.callsOf("RespondToPermission"); len(calls) != 1 {
		t.Fatalf("answer sent %d times", len(calls))
	}
}

// TestQuestionAnswerStoredBeforeSent: the user's answer to a question is
// stored before it is sent (commit, then act). A failing store sends
// nothing and keeps the question pending; a stored answer is kept even when
// its delivery fails, and the error says so.
func TestQuestionAnswerStoredBeforeSent(t *testing.T) {
	h, s := startT1(t, Options{Coalesce: -1})
	ctx := context.Background()
	q := &agent.Request{RequestID: "q1", ToolID: "toolu_q1", ToolName: "AskUserQuestion", Question: "Which color?",
		Questions: []agent.Question{{Question: "Which color?"}, {Question: "Why?"}}}
	s.send(agent.Event{Type: agent.EventQuestion, Request: q})
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	if _, err := h.db.W.Exec(`CREATE TRIGGER full BEFORE INSERT ON question_answers BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	answers := [][]string{{"blue"}, {"my own words, typed"}}
	err := h.o.RespondToQuestion(ctx, "t1", "q1", answers)
	if err == nil || !strings.Contains(err.Error(), "disk is full") || !strings.Contains(err.Error(), "not sent") {
		t.Fatalf("answer with a failing store: %v", err)
	}
	if calls := s.callsOf("RespondToQuestion"); len(calls) != 0 {
		t.Fatalf("sent to the agent although not stored: %v", calls)
	}
	if p, _ := h.o.PendingRequests(ctx, "t1"); len(p) != 1 {
		t.Fatalf("the question is no longer pending after a failed store: %+v", p)
	}
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	if n := len(answeredEvents(h.rec)); n != 0 {
		t.Fatalf("%d answers emitted although none was stored", n)
	}
	if _, err := h.db.W.Exec(`DROP TRIGGER full`); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.answerErr = agent.ErrSessionClosed
	s.mu.Unlock()
	err = h.o.RespondToQuestion(ctx, "t1", "q1", answers)
	if err == nil || !strings.Contains(err.Error(), "stored, not delivered") {
		t.Fatalf("answer whose delivery fails: %v", err)
	}
	got, err := h.o.QuestionAnswers(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].RequestID != "q1" || got[0].ToolID != "toolu_q1" || len(got[0].Request.Questions) != 2 {
		t.Fatalf("stored answers %+v", got)
	}
	if d := cmp.Diff(answers, got[0].Answers); d != "" {
		t.Fatalf("stored answer differs from the user's: %s", d)
	}
	var types string
	if err := h.db.R.QueryRow(`SELECT typeof(request) || ' ' || typeof(answers) FROM question_answers`).Scan(&types); err != nil || types != "text text" {
		t.Fatalf("stored as %q (%v), want JSON text as pending_requests holds it", types, err)
	}
	if calls := s.callsOf("RespondToQuestion"); len(calls) != 1 {
		t.Fatalf("answer sent %d times, want once (after it was stored)", len(calls))
	}
	if ev := answeredEvents(h.rec); len(ev) != 1 || ev[0].Answer.ID != got[0].ID || !reflect.DeepEqual(ev[0].Answer.Answers, answers) {
		t.Fatalf("answered events %+v, want the stored answer once", ev)
	}
}

func answeredEvents(rec *recorder) []AnswerPayload {
	var out []AnswerPayload
	for _, e := range rec.all() {
		if p, ok := e.Payload.(AnswerPayload); ok && e.Name == EventAnswered {
			out = append(out, p)
		}
	}
	return out
}

// TestFloodBoundedAndStoppable: an agent writing 200,000 lines as fast as it
// can does not grow the app's heap past floodHeapBound (the stream holds at
// most agent.MaxQueuedFrames frames / MaxQueuedBytes, the orchestrator one
// group of maxGroup batches; the rest waits in the agent's pipe), and Stop
// ends the task within 2 s.
func TestFloodBoundedAndStoppable(t *testing.T) {
	if testing.Short() {
		t.Skip("floods")
	}
	for _, mode := range relayModes {
		t.Run(mode.name, func(t *testing.T) { testFloodBoundedAndStoppable(t, relayDirFor(t, mode.on)) })
	}
}

func testFloodBoundedAndStoppable(t *testing.T, rdir string) {
	const floodHeapBound = 64 << 20
	db := openDB(t)
	reg := claudeRegistry(t, "FAKE_CLAUDE_REPEAT=200000")
	o, rec := newProcHarnessIn(t, db, reg, rdir)
	// The recorder would keep every event of the flood (whole messages):
	// ~90 MB live by the end of the window, growing with the flood's speed,
	// which the bound below would count as the app's.
	rec.forget = true
	addTask(t, db, "t1", "claude-code", "flood")
	ctx := context.Background()
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	var peak uint64
	waitFor(t, "the flood to be under way", func() bool { n, _ := store.CountRawFrames(ctx, db.R, "t1"); return n > 500 })
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		time.Sleep(20 * time.Millisecond)
	}
	n, _ := store.CountRawFrames(ctx, db.R, "t1")
	var live runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&live)
	t.Logf("%d frames stored, heap in use %d MB at peak (%d MB before), %d MB live under the flood",
		n, peak>>20, base.HeapInuse>>20, live.HeapAlloc>>20)
	if peak > base.HeapInuse+floodHeapBound {
		t.Errorf("heap grew to %d MB under the flood (bound %d MB)", peak>>20, floodHeapBound>>20)
	}
	t0 := time.Now()
	if err := o.Stop(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	bound := 2 * time.Second
	if raceEnabled {
		bound = 10 * time.Second // the backlog drains ~10x slower
	}
	if d := time.Since(t0); d > bound {
		t.Errorf("Stop took %v (bound %v)", d, bound)
	}
	if st := loadTask(t, db, "t1").Status; st != store.StatusInterrupted {
		t.Errorf("status after Stop = %s", st)
	}
	checkTranscriptMatchesRaw(t, db, "t1")
	checkNoRelayLeft(t, rdir)
}

// checkNoRelayLeft fails if a relay of rdir still runs or left its files
// shortly after its task ended (its Exit was acked: it removes them and
// ends at once; Stop returns once every frame before the Exit is stored,
// and the Exit's ack follows within the ack sender's 2 ms). A relay left
// alive 2 s after a flood's Stop under a full make test was a relay that
// missed the Exit's ack (fixed: relay's TestExitAckedAsSoonAsSentEndsRelay);
// 5 s leave room for a loaded machine.
func checkNoRelayLeft(t *testing.T, rdir string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(relaysLeft(t, rdir)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if left := relaysLeft(t, rdir); len(left) > 0 {
		t.Errorf("relays left: %v", left)
	}
}

// TestStopFloodingStubbornAgentWithDefaults: with the Claude backend's
// default stop settings (not the short ones of the other process tests),
// Stop on an agent that floods its stdout and ignores the interrupt, the
// end of its stdin and SIGTERM returns, and the task has left running,
// within 2 s.
func TestStopFloodingStubbornAgentWithDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("floods")
	}
	for _, mode := range relayModes {
		t.Run(mode.name, func(t *testing.T) { testStopFloodingStubborn(t, relayDirFor(t, mode.on)) })
	}
}

func testStopFloodingStubborn(t *testing.T, rdir string) {
	db := openDB(t)
	reg := agent.NewRegistry()
	reg.Register(claude.New(claude.Options{Binary: agenttest.BuildFakeClaude(t),
		Env: []string{"FAKE_CLAUDE_REPEAT=200000", "FAKE_CLAUDE_STUBBORN=1"}}))
	o, rec := newProcHarnessIn(t, db, reg, rdir)
	// The recorder would keep every event of the flood (whole messages):
	// ~90 MB live by the end of the window, growing with the flood's speed,
	// which the bound below would count as the app's.
	rec.forget = true
	addTask(t, db, "t1", "claude-code", "flood")
	ctx := context.Background()
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the flood to be under way", func() bool { n, _ := store.CountRawFrames(ctx, db.R, "t1"); return n > 2000 })
	t0 := time.Now()
	if err := o.Stop(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	bound := 2 * time.Second
	if raceEnabled {
		bound = 10 * time.Second
	}
	st := loadTask(t, db, "t1").Status
	t.Logf("Stop took %v; status %s", took, st)
	if took > bound {
		t.Errorf("Stop took %v (bound %v)", took, bound)
	}
	if st == store.StatusRunning || st == store.StatusWaiting {
		t.Errorf("status after Stop = %s", st)
	}
	checkTranscriptMatchesRaw(t, db, "t1")
	checkNoRelayLeft(t, rdir)
}

// TestSearchFindsStreamedTextWithinLag: the search index is updated in
// batches (migration 0110), not per write, yet search finds the text of a
// message still streaming and of a finished one within a bounded time:
// store.SearchLag after its row is written (rowInterval after its delta).
func TestSearchFindsStreamedTextWithinLag(t *testing.T) {
	h, s := startT1(t, Options{Formats: agent.NewFormats(deltaFormat), Coalesce: -1})
	ctx := context.Background()
	n := newDeltaNorm()
	found := func(word string) bool {
		hits, err := store.Search(ctx, h.db.R, store.SearchQuery{Text: word})
		if err != nil {
			t.Fatal(err)
		}
		return len(hits) > 0
	}
	bound := rowInterval + store.SearchLag + time.Second // + scheduling under a loaded machine
	if raceEnabled {
		bound += 5 * time.Second
	}
	t0 := time.Now()
	streamSession(s, n, `{"id":"a1","text":"Hel"}`, `{"id":"a1","delta":"lo zanzibarquux"}`)
	waitFor(t, "the streaming text to be found", func() bool { return found("zanzibarquux") })
	if d := time.Since(t0); d > bound {
		t.Errorf("streaming text found after %v (bound %v)", d, bound)
	}
	t0 = time.Now()
	streamSession(s, n, `{"id":"a1","delta":" and xylophonezed"}`, `{"done":true}`)
	waitFor(t, "the finished text to be found", func() bool { return found("xylophonezed") })
	if d := time.Since(t0); d > bound {
		t.Errorf("finished text found after %v (bound %v)", d, bound)
	}
	if !found("zanzibarquux") {
		t.Error("the earlier text is no longer found")
	}
}

// startT1 makes a harness with opt and starts task t1 on the fake backend.
func startT1(t *testing.T, opt Options) (*harness, *fakeSession) {
	t.Helper()
	h := newHarness(t, opt)
	addTask(t, h.db, "t1", "fake", "go")
	if err := h.o.Start(context.Background(), "t1"); err != nil {
		t.Fatal(err)
	}
	return h, h.be.next(t)
}

// startToolStream starts task t1 on the fake delta backend, streams message
// a1's text and then a tool (its row then waits for its next write), and
// waits until the version with the tool is emitted.
func startToolStream(t *testing.T) (*harness, *fakeSession, agent.Normalizer) {
	t.Helper()
	h, s := startT1(t, Options{Formats: agent.NewFormats(deltaFormat), Coalesce: -1})
	n := newDeltaNorm()
	streamSession(s, n, `{"id":"a1","text":"Hel"}`, `{"id":"a1","tool":"t-1"}`)
	waitFor(t, "the tool's version emitted", func() bool {
		for _, p := range h.rec.agentEvents("t1") {
			if p.Event.Type == agent.EventMessage && len(p.Event.Message.Parts) == 3 {
				return true
			}
		}
		return false
	})
	return h, s, n
}

// TestRowBehindIsMarkedServedLiveAndRepaired: a message's row is written
// when new and then at most every rowInterval; meanwhile its row is marked
// behind its raw frames, Messages serves the latest version from memory,
// the loop writes the row by itself rowInterval later, and a row a crash
// left behind is re-normalized from its raw data by Recover.
func TestRowBehindIsMarkedServedLiveAndRepaired(t *testing.T) {
	h, s, n := startToolStream(t)
	ctx := context.Background()
	msgs, err := h.o.Messages(ctx, "t1")
	if err != nil || len(msgs) == 0 || len(msgs[len(msgs)-1].Parts) != 3 {
		t.Fatalf("Messages right after the event: %+v %v (want the version with the tool)", msgs, err)
	}
	row := func() (int, int) {
		var data string
		var version int
		if err := h.db.R.QueryRow(`SELECT normalizedData, normalizedVersion FROM agent_messages WHERE taskId = 't1' AND messageId = 'a1'`).
			Scan(&data, &version); err != nil {
			t.Fatal(err)
		}
		var m agent.Message
		_ = json.Unmarshal([]byte(data), &m)
		return len(m.Parts), version
	}
	if parts, version := row(); parts != 3 && version != store.BehindVersion {
		t.Fatalf("row with %d parts at version %d: behind its frames but not marked", parts, version)
	}
	waitFor(t, "the row written by the loop's timer", func() bool {
		parts, version := row()
		return parts == 3 && version == agent.NormalizationVersion
	})
	streamSession(s, n, `{"done":true}`)
	waitStatus(t, h.db, "t1", store.StatusCompleted)

	// What a crash leaves: the row's data older than its raw frames, marked.
	if _, err := h.db.W.Exec(`UPDATE agent_messages SET normalizedData = ?, normalizedVersion = ? WHERE taskId = 't1' AND messageId = 'a1'`,
		`{"id":"a1","role":"assistant","parts":[{"type":"text","text":"Hel"}]}`, store.BehindVersion); err != nil {
		t.Fatal(err)
	}
	if _, err := h.o.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if parts, version := row(); parts != 3 || version != agent.NormalizationVersion {
		t.Fatalf("after Recover: row with %d parts at version %d, want 3 at %d", parts, version, agent.NormalizationVersion)
	}
}

// TestMessagesPageServesLiveVersions: a page of the transcript shows the
// latest version of a message whose row waits for its next write, as
// Messages does, and respects its limit.
func TestMessagesPageServesLiveVersions(t *testing.T) {
	h, s, n := startToolStream(t)
	ctx := context.Background()
	// The row as a crash would leave it, older than the run's version,
	// which stays dirty and is not written again before the run ends.
	if _, err := h.db.W.Exec(`UPDATE agent_messages SET normalizedData = ? WHERE taskId = 't1' AND messageId = 'a1'`,
		`{"id":"a1","role":"assistant","parts":[{"type":"text","text":"Hel"}]}`); err != nil {
		t.Fatal(err)
	}
	unlock := h.o.lock("t1")
	lm := h.o.getRun("t1").live["a1"]
	lm.dirty, lm.wrote = true, time.Now().Add(time.Hour)
	unlock()
	p, err := h.o.MessagesPage(ctx, "t1", -1, 1, "")
	if err != nil || len(p.Messages) != 1 || p.Messages[0].ID != "a1" || len(p.Messages[0].Parts) != 3 || !p.HasOlder {
		t.Fatalf("newest page of 1 right after the event: %+v %v (want a1 with the tool, older messages left)", p, err)
	}
	older, err := h.o.MessagesPage(ctx, "t1", p.First, 10, "")
	if err != nil || len(older.Messages) == 0 || older.HasOlder || older.Messages[len(older.Messages)-1].ID == "a1" {
		t.Fatalf("the page before it: %+v %v", older, err)
	}
	streamSession(s, n, `{"done":true}`)
	waitStatus(t, h.db, "t1", store.StatusCompleted)
}

// TestJobTakesBatchesThatCameWhileItWaited: batches that reach the loop
// while its job waits for the writer go into that job's transaction, not
// into a round of their own after its commit (the paced p99 of
// BenchmarkParallelTasks, docs/streaming.md fourteenth pass).
func TestJobTakesBatchesThatCameWhileItWaited(t *testing.T) {
	h, s := startT1(t, Options{Coalesce: -1})
	ctx := context.Background()
	stored := func(n int) func() bool {
		return func() bool { c, _ := store.CountRawFrames(ctx, h.db.R, "t1"); return c == n }
	}
	s.send(msgEv("m0", agent.RoleAssistant, "first"))
	waitFor(t, "first frame stored", stored(1))

	busy, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = h.o.writer.do(func(*sql.Tx) error { close(busy); <-release; return nil })
	}()
	<-busy
	s.send(msgEv("m1", agent.RoleAssistant, "taken alone"))
	waitFor(t, "m1 taken by the loop", func() bool { return len(s.events) == 0 })
	time.Sleep(50 * time.Millisecond) // the loop is past its own gather, waiting for the writer
	for i := 2; i <= 5; i++ {
		s.send(msgEv(fmt.Sprintf("m%d", i), agent.RoleAssistant, "came while it waited"))
	}
	before := h.o.writer.jobsRun.Load()
	close(release)
	waitFor(t, "every frame stored", stored(6))
	if n := h.o.writer.jobsRun.Load() - before; n != 1 {
		t.Fatalf("%d jobs after the writer was released, want 1 (m1..m5 in one)", n)
	}
	msgs, err := store.Messages(ctx, h.db.R, "t1")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range msgs {
		if m.Role != agent.RoleUser { // the prompt
			ids = append(ids, m.ID)
		}
	}
	if got := strings.Join(ids, " "); got != "m0 m1 m2 m3 m4 m5" {
		t.Fatalf("stored %s", got)
	}
}

// TestWholeMessageEveryFrameLinear: Claude's thinking estimate is one
// message emitted whole at every thinking_tokens line — one before each
// thinking delta, thousands in a long thinking phase — its Raw every line so
// far. The orchestrator stores it reading each line about once (it compared
// the message's raw data so far with each new version: 2,000 lines of ~190
// bytes cost ~380 MB compared), its row's head names a bounded number of
// frame ranges (it grew by one range a line, every other frame being a
// thinking delta, and was rewritten with the row at each line: ~23 KB at
// the end), and what it stores is still every line.
func TestWholeMessageEveryFrameLinear(t *testing.T) {
	h, s := startT1(t, Options{Formats: agent.NewFormats(claude.Format()), Coalesce: -1})
	ctx := context.Background()
	n := claude.NewNormalizer()
	se := func(ev string) string {
		return `{"type":"stream_event","event":` + ev + `,"session_id":"s1","parent_tool_use_id":null,"api_message_id":"msg_1"}`
	}
	frames := []string{
		se(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}`),
		se(`{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`),
	}
	var lines []string
	for i := range 2000 {
		l := fmt.Sprintf(`{"type":"system","subtype":"thinking_tokens","estimated_tokens":%d,"estimated_tokens_delta":9,"session_id":"s1","uuid":"6fea8277-6b39-4e6d-82e3-%012d"}`, 9*(i+1), i)
		lines = append(lines, l)
		frames = append(frames, l, se(`{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"lorem ipsum dolor si"}}`))
	}
	frames = append(frames, `{"type":"result","subtype":"success","is_error":false,"duration_ms":5,"num_turns":1,"result":"","session_id":"s1","total_cost_usd":0}`)
	for i, f := range frames {
		s.events <- agent.Batch{Frame: []byte(f), Format: claude.FormatName, Events: n.Feed([]byte(f)), ReceivedAt: time.Now()}
		if i%8 == 0 {
			time.Sleep(100 * time.Microsecond) // small groups, as a real stream makes
		}
	}
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	id := "6fea8277-6b39-4e6d-82e3-000000000000"
	raw, _, err := store.MessageRaw(ctx, h.db.R, "t1", id)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(lines, "\n"); string(raw) != want {
		t.Fatalf("the estimate's raw data: %d bytes, want its %d lines (%d bytes)", len(raw), len(lines), len(want))
	}
	msgs, err := store.Messages(ctx, h.db.R, "t1")
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(msgs, func(m agent.Message) bool { return m.ID == id })
	if i < 0 || msgs[i].Parts[0].Text != "thinking (about 18000 tokens)" {
		t.Fatalf("stored messages: %+v", msgs)
	}
	checkCompared(t, h, len(raw))
	var head string
	if err := h.db.R.QueryRow(`SELECT coalesce(rawRefs, '') FROM agent_messages WHERE taskId = 't1' AND messageId = ?`, id).Scan(&head); err != nil {
		t.Fatal(err)
	}
	if ranges := strings.Count(head, "],["); ranges >= maxHeadRanges {
		t.Errorf("the row's head names %d frame ranges (%d bytes, rewritten with the row), want < %d", ranges+1, len(head), maxHeadRanges)
	}
	h.rec.checkStored(t)
}

// TestWholeMessageAmidDeltasLinear: a message streamed in deltas and
// re-emitted whole at every structural change (an ACP turn: text chunks,
// then a tool call's update, and so on) is stored reading each frame about
// once; what is stored re-normalizes to what live stored.
func TestWholeMessageAmidDeltasLinear(t *testing.T) {
	h, s := startT1(t, Options{Formats: agent.NewFormats(deltaFormat), Coalesce: -1})
	ctx := context.Background()
	n := newDeltaNorm()
	frames := []string{`{"id":"a1","text":"Hel"}`}
	for i := range 300 {
		for k := range 5 {
			frames = append(frames, fmt.Sprintf(`{"id":"a1","delta":"lo %d.%d, "}`, i, k))
		}
		frames = append(frames, fmt.Sprintf(`{"id":"a1","tool":"t-%d"}`, i))
	}
	streamSession(s, n, append(frames, `{"done":true}`)...)
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	raw, _, err := store.MessageRaw(ctx, h.db.R, "t1", "a1")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(frames, "\n"); string(raw) != want {
		t.Fatalf("raw data: %d bytes, want %d", len(raw), len(want))
	}
	msgs, err := store.Messages(ctx, h.db.R, "t1")
	if err != nil {
		t.Fatal(err)
	}
	got := msgs[len(msgs)-1]
	checkRenormalized(t, got, raw)
	checkCompared(t, h, len(raw))
	h.rec.checkStored(t)
}

// TestDeltaFramesNotCopiedWhenShared: when a normalizer hands a delta's
// frame along with the message's raw data so far in the same memory
// (MessageRaw, as Claude's does), the orchestrator takes that slice as the
// message's raw data instead of copying the frame; what is stored is the
// same, and re-normalizes to what live stored. Without MessageRaw every
// delta's frame is copied (the check of the counter itself).
func TestDeltaFramesNotCopiedWhenShared(t *testing.T) {
	for _, share := range []bool{true, false} {
		t.Run(fmt.Sprintf("share=%v", share), func(t *testing.T) {
			h, s := startT1(t, Options{Formats: agent.NewFormats(deltaFormat), Coalesce: -1})
			n := &deltaNorm{msgs: map[string]*agent.Message{}, raw: map[string][]byte{}, share: share}
			frames := []string{`{"id":"a1","text":"Hel"}`}
			var deltaBytes int64
			for i := range 200 {
				f := fmt.Sprintf(`{"id":"a1","delta":"lo %d, "}`, i)
				deltaBytes += int64(len(f))
				frames = append(frames, f)
				if i == 100 { // a structural change midway: the raw data is taken whole again
					frames = append(frames, `{"id":"a1","tool":"t-1"}`)
				}
			}
			streamSession(s, n, append(frames, `{"done":true}`)...)
			waitStatus(t, h.db, "t1", store.StatusCompleted)
			raw, _, err := store.MessageRaw(context.Background(), h.db.R, "t1", "a1")
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Join(frames, "\n"); string(raw) != want {
				t.Fatalf("raw data: %d bytes, want %d", len(raw), len(want))
			}
			msgs, err := store.Messages(context.Background(), h.db.R, "t1")
			if err != nil {
				t.Fatal(err)
			}
			checkRenormalized(t, msgs[len(msgs)-1], raw)
			checkCompared(t, h, len(raw))
			copied := h.o.rawCopied.Load()
			t.Logf("copied %d bytes of %d bytes of delta frames", copied, deltaBytes)
			if share && copied != 0 {
				t.Errorf("copied %d bytes of delta frames, want 0 (MessageRaw taken)", copied)
			}
			if !share && copied != deltaBytes {
				t.Errorf("copied %d bytes of delta frames, want all %d", copied, deltaBytes)
			}
		})
	}
}

// checkCompared fails t when storing a message of size bytes of raw data
// compared more than 8× that: a normalizer's buffer moves when it grows (a
// geometric number of times), and each move costs one comparison of what
// is there; a comparison of everything so far at each whole event costs
// hundreds of times.
func checkCompared(t *testing.T, h *harness, size int) {
	t.Helper()
	compared := h.o.rawCompared.Load()
	t.Logf("compared %d bytes of raw data for a message of %d bytes", compared, size)
	if compared > 8*int64(size) {
		t.Errorf("compared %d bytes of raw data to store a message of %d bytes (%.0f×, want ≤ 8×)",
			compared, size, float64(compared)/float64(size))
	}
}

// checkRenormalized fails t unless re-normalizing message a1's raw data
// gives got, the message live stored.
func checkRenormalized(t *testing.T, got agent.Message, raw []byte) {
	t.Helper()
	re, err := agent.Rebuild(deltaFormat, raw, "a1")
	if err != nil {
		t.Fatal(err)
	}
	store.StampTimestamp(&re, 0)
	re.Timestamp = got.Timestamp
	if d := cmp.Diff(got, re); d != "" {
		t.Fatalf("re-normalized differs from live (-live +re):\n%s", d)
	}
}
