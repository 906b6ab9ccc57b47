package orchestrator

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/notify"
	"github.com/jean-claude/jean-claude/backend/store"
)

func TestFullRunStoredThenEmittedInOrder(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "fix the bug")
	if err := h.o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t)
	if s.prompt != "fix the bug" || s.cfg.SessionID != "" || s.cfg.Mode != agent.ModeAsk {
		t.Fatalf("started with prompt %q cfg %+v", s.prompt, s.cfg)
	}
	waitStatus(t, h.db, "t1", store.StatusRunning)
	s.send(agent.Event{Type: agent.EventSessionID, SessionID: "sess-1"})
	s.send(msgEv("a1", agent.RoleAssistant, "Hel"))
	s.send(msgEv("a1", agent.RoleAssistant, "Hello"))
	s.send(msgEv("a2", agent.RoleAssistant, "Done."))
	s.send(completeEv("Done.\nmore"))
	tr := waitStatus(t, h.db, "t1", store.StatusCompleted)
	if tr.SessionID != "sess-1" || !tr.HasUnread || tr.StartedAt == 0 || tr.EndedAt == 0 {
		t.Fatalf("task after run: %+v", tr)
	}
	n, _ := store.CountRawFrames(ctx, h.db.R, "t1")
	if n != 5 {
		t.Fatalf("raw frames = %d, want 5", n)
	}
	msgs, err := h.o.Messages(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, string(m.Role)+":"+m.Parts[0].Text)
		if m.Timestamp == "" {
			t.Errorf("message %s not stamped", m.ID)
		}
	}
	want := []string{"user:fix the bug", "assistant:Hello", "assistant:Done."}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("transcript (-want +got):\n%s", d)
	}
	// Emitted: seq strictly increasing, the last version of a1, complete last.
	waitFor(t, "complete emitted", func() bool {
		evs := h.rec.agentEvents("t1")
		return len(evs) > 0 && evs[len(evs)-1].Event.Type == agent.EventComplete
	})
	evs := h.rec.agentEvents("t1")
	var last int64
	var lastA1 string
	for _, e := range evs {
		if e.Seq <= last {
			t.Fatalf("seq not increasing: %d after %d", e.Seq, last)
		}
		last = e.Seq
		if e.Event.Type == agent.EventMessage && e.Event.Message.ID == "a1" {
			lastA1 = e.Event.Message.Parts[0].Text
		}
	}
	if lastA1 != "Hello" {
		t.Fatalf("last emitted a1 = %q", lastA1)
	}
	h.rec.checkStored(t)
	waitFor(t, "notification", func() bool { return len(h.nt.list()) > 0 })
	if ns := h.nt.list(); len(ns) != 1 || ns[0].Kind != notify.KindComplete || ns[0].Body != "Done: Done." ||
		ns[0].Title != "my-project · Task t1" {
		t.Fatalf("notifications = %+v", ns)
	}
}

func TestCoalescingKeepsLatestAndOrder(t *testing.T) {
	rec := newRecorder(t, nil)
	e := newTaskEmitter(rec, "t", 1<<40) // never fires by itself
	for i, txt := range []string{"a", "ab", "abc"} {
		_ = i
		e.message(agent.Event{Type: agent.EventMessage, Message: &agent.Message{ID: "m1", Parts: []agent.Part{{Type: agent.PartText, Text: txt}}}}, testTime)
	}
	e.message(agent.Event{Type: agent.EventMessage, Message: &agent.Message{ID: "m2"}}, testTime)
	e.agentEvent(agent.Event{Type: agent.EventComplete}, testTime)
	evs := rec.agentEvents("t")
	var got []string
	for _, p := range evs {
		s := string(p.Event.Type)
		if p.Event.Message != nil {
			s += ":" + p.Event.Message.ID
			if len(p.Event.Message.Parts) > 0 {
				s += ":" + p.Event.Message.Parts[0].Text
			}
		}
		got = append(got, s)
	}
	want := []string{"message:m1:abc", "message:m2", "complete"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	for i, p := range evs {
		if p.Seq != int64(i+1) {
			t.Fatalf("seq %d at %d", p.Seq, i)
		}
	}
}

func TestPermissionAlwaysForProjectAppliedToNextRequest(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	addTask(t, h.db, "t2", "fake", "go again")
	if err := h.o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t)
	s.send(msgEv("a1", agent.RoleAssistant, "running tests"), permEv("r1", "Bash", "npm test"))
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	waitFor(t, "permission notification", func() bool { return len(h.nt.list()) > 0 })
	reqs, _ := h.o.PendingRequests(ctx, "t1")
	if len(reqs) != 1 || reqs[0].RequestID != "r1" || reqs[0].Kind != store.RequestPermission {
		t.Fatalf("pending = %+v", reqs)
	}
	if ns := h.nt.list(); len(ns) != 1 || ns[0].Body != "Waiting for you: Bash wants to run: npm test" {
		t.Fatalf("notifications = %+v", ns)
	}
	if err := h.o.RespondToPermission(ctx, "t1", "r1", PermissionAnswer{Behavior: agent.Allow, Scope: store.ScopeProject}); err != nil {
		t.Fatal(err)
	}
	if tr := loadTask(t, h.db, "t1"); tr.Status != store.StatusRunning {
		t.Fatalf("status after answer = %s", tr.Status)
	}
	if err := h.o.RespondToPermission(ctx, "t1", "r1", PermissionAnswer{Behavior: agent.Allow}); !errors.Is(err, agent.ErrUnknownRequest) {
		t.Fatalf("answering twice = %v, want ErrUnknownRequest", err)
	}
	s.send(completeEv("ok"))
	waitStatus(t, h.db, "t1", store.StatusCompleted)

	// Another task of the same project: the rule answers by itself.
	if err := h.o.Start(ctx, "t2"); err != nil {
		t.Fatal(err)
	}
	s2 := h.be.next(t)
	s2.send(agent.Event{Type: agent.EventMessage, Message: &agent.Message{ID: "b1", Role: agent.RoleAssistant,
		Parts: []agent.Part{{Type: agent.PartToolUse, ToolID: "tool-r2", ToolName: "Bash"}}}})
	s2.send(permEv("r2", "Bash", "npm test -- --watch=false"))
	waitFor(t, "auto answer", func() bool { return len(s2.callsOf("RespondToPermission")) == 1 })
	got := s2.callsOf("RespondToPermission")[0].([2]any)
	if got[0] != "r2" || got[1].(agent.PermissionResponse).Behavior != agent.Allow {
		t.Fatalf("auto answer = %+v", got)
	}
	if tr := loadTask(t, h.db, "t2"); tr.Status != store.StatusRunning {
		t.Fatalf("status = %s, want running (no waiting for a rule)", tr.Status)
	}
	ds, _ := h.o.Decisions(ctx, "t2")
	if len(ds) != 1 || ds[0].Source != "rule" || ds[0].Label != "allowed by rule: Bash(npm test:*) for this project" {
		t.Fatalf("decisions = %+v", ds)
	}
	msgs, _ := h.o.Messages(ctx, "t2")
	md, _ := msgs[1].Metadata["permissionDecisions"].(map[string]any)
	if d, ok := md["tool-r2"].(store.PermissionDecision); !ok || d.Source != "rule" {
		t.Fatalf("message metadata = %+v", msgs[1].Metadata)
	}
	var sawDecision bool
	for _, e := range h.rec.all() {
		if p, ok := e.Payload.(DecisionPayload); ok && p.TaskID == "t2" && strings.Contains(p.Decision.Label, "by rule") {
			sawDecision = true
		}
	}
	if !sawDecision {
		t.Fatal("no permission:decided event for the rule")
	}
	// The tool's message, already shown, is emitted again with the decision.
	waitFor(t, "decorated tool message", func() bool {
		for _, e := range h.rec.agentEvents("t2") {
			if m := e.Event.Message; m != nil && m.ID == "b1" {
				if md, ok := m.Metadata["permissionDecisions"].(map[string]any); ok && md["tool-r2"] != nil {
					return true
				}
			}
		}
		return false
	})
	// A chained command is not covered by the prefix rule.
	s2.send(permEv("r3", "Bash", "npm test && rm -rf ~"))
	waitStatus(t, h.db, "t2", store.StatusWaiting)
	if n := len(s2.callsOf("RespondToPermission")); n != 1 {
		t.Fatalf("answered %d, want still 1", n)
	}
}

func TestPermissionDenyWithReason(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	s.send(permEv("r1", "Bash", "rm -rf /"))
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	err := h.o.RespondToPermission(ctx, "t1", "r1", PermissionAnswer{Behavior: agent.Deny, Scope: store.ScopeProject, Message: "no", Interrupt: true})
	if err != nil {
		t.Fatal(err)
	}
	got := s.callsOf("RespondToPermission")[0].([2]any)[1].(agent.PermissionResponse)
	if got.Behavior != agent.Deny || got.Message != "no" || !got.Interrupt {
		t.Fatalf("sent %+v", got)
	}
	rules, _ := store.ProjectRules(ctx, h.db.R, "p1")
	if len(rules) != 0 {
		t.Fatalf("deny created rules %+v", rules)
	}
}

func TestQuestionWaitsThenRuns(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	s.send(agent.Event{Type: agent.EventQuestion, Request: &agent.Request{RequestID: "q1", Question: "Which color?"}})
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	if err := h.o.RespondToQuestion(ctx, "t1", "q1", [][]string{{"blue"}}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, h.db, "t1", store.StatusRunning)
	waitFor(t, "question notification", func() bool { return len(h.nt.list()) > 0 })
	got := s.callsOf("RespondToQuestion")[0].([2]any)[1].(agent.QuestionAnswer)
	if d := cmp.Diff([][]string{{"blue"}}, got.Answers); d != "" {
		t.Fatal(d)
	}
	if ns := h.nt.list(); len(ns) != 1 || ns[0].Kind != notify.KindQuestion || ns[0].Body != "Waiting for you: Question: Which color?" {
		t.Fatalf("notifications %+v", ns)
	}
}

func TestQueueWhileBusySentInOrderWhenIdle(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	for _, m := range []string{"first", "second", "third"} {
		if err := h.o.SendMessage(ctx, "t1", m); err != nil {
			t.Fatal(err)
		}
	}
	q, _ := h.o.Queue(ctx, "t1")
	if len(q) != 3 {
		t.Fatalf("queue = %+v", q)
	}
	if err := h.o.EditQueued(ctx, q[1].ID, "second, edited"); err != nil {
		t.Fatal(err)
	}
	if err := h.o.RemoveQueued(ctx, q[2].ID); err != nil {
		t.Fatal(err)
	}
	if len(s.callsOf("SendMessage")) != 0 {
		t.Fatal("sent while busy")
	}
	s.send(completeEv("one"))
	waitFor(t, "first sent", func() bool { return len(s.callsOf("SendMessage")) == 1 })
	if tr := loadTask(t, h.db, "t1"); tr.Status != store.StatusRunning {
		t.Fatalf("status = %s while the queued turn runs", tr.Status)
	}
	s.send(completeEv("two"))
	waitFor(t, "second sent", func() bool { return len(s.callsOf("SendMessage")) == 2 })
	s.send(completeEv("three"))
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	if d := cmp.Diff([]any{"first", "second, edited"}, s.callsOf("SendMessage")); d != "" {
		t.Fatalf("sent (-want +got):\n%s", d)
	}
	// Idle live session: sent at once and stored as a user message.
	if err := h.o.SendMessage(ctx, "t1", "now"); err != nil {
		t.Fatal(err)
	}
	if got := s.callsOf("SendMessage"); len(got) != 3 || got[2] != "now" {
		t.Fatalf("sent %v", got)
	}
	msgs, _ := h.o.Messages(ctx, "t1")
	var users []string
	for _, m := range msgs {
		if m.Role == agent.RoleUser {
			users = append(users, m.Parts[0].Text)
		}
	}
	if d := cmp.Diff([]string{"go", "first", "second, edited", "now"}, users); d != "" {
		t.Fatalf("user messages (-want +got):\n%s", d)
	}
	var queueEvents int
	for _, e := range h.rec.all() {
		if e.Name == EventQueue {
			queueEvents++
		}
	}
	if queueEvents < 5 {
		t.Fatalf("queue:updated emitted %d times", queueEvents)
	}
}

func TestEchoedUserMessageNotShownTwice(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "hello there")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	s.send(msgEv("u-native", agent.RoleUser, "hello there"))
	s.send(completeEv(""))
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	msgs, _ := h.o.Messages(ctx, "t1")
	if len(msgs) != 1 || msgs[0].ID != "u-native" {
		t.Fatalf("messages = %+v", msgs)
	}
}

func TestQueueSurvivesRestartAndResumesBySessionID(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	addTask(t, db, "t1", "fake", "go")
	h := newHarness(t, Options{DB: db})
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	s.send(agent.Event{Type: agent.EventSessionID, SessionID: "sess-9"})
	waitFor(t, "session id stored", func() bool { return loadTask(t, db, "t1").SessionID == "sess-9" })
	if err := h.o.SendMessage(ctx, "t1", "queued before the crash"); err != nil {
		t.Fatal(err)
	}
	// The app goes away without a clean stop: a new orchestrator on the file.
	h2 := newHarness(t, Options{DB: db})
	n, err := h2.o.Recover(ctx)
	if err != nil || n != 1 {
		t.Fatalf("recovered %d, %v", n, err)
	}
	tr := loadTask(t, db, "t1")
	if tr.Status != store.StatusInterrupted || tr.StatusReason != ReasonAppClosed {
		t.Fatalf("after recovery: %s %q", tr.Status, tr.StatusReason)
	}
	q, _ := h2.o.Queue(ctx, "t1")
	if len(q) != 1 || q[0].Text != "queued before the crash" {
		t.Fatalf("queue after restart = %+v", q)
	}
	if err := h2.o.Resume(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s2 := h2.be.next(t)
	if s2.cfg.SessionID != "sess-9" || s2.prompt != "queued before the crash" {
		t.Fatalf("resumed with session %q prompt %q", s2.cfg.SessionID, s2.prompt)
	}
	if q, _ := h2.o.Queue(ctx, "t1"); len(q) != 0 {
		t.Fatalf("queue after resume = %+v", q)
	}
	waitStatus(t, db, "t1", store.StatusRunning)
	s.end(nil)
}

func TestFollowUpToFinishedTaskResumesStoredSession(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	s.send(agent.Event{Type: agent.EventSessionID, SessionID: "sess-7"}, completeEv("ok"))
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	s.end(nil) // the process exits after its turn
	waitFor(t, "run gone", func() bool { return len(h.o.Running()) == 0 })
	if err := h.o.SendMessage(ctx, "t1", "and now?"); err != nil {
		t.Fatal(err)
	}
	s2 := h.be.next(t)
	if s2.cfg.SessionID != "sess-7" || s2.prompt != "and now?" {
		t.Fatalf("follow-up started session %q prompt %q", s2.cfg.SessionID, s2.prompt)
	}
}

func TestStopInterrupts(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	s.send(permEv("r1", "Bash", "ls"))
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	if err := h.o.Stop(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	tr := loadTask(t, h.db, "t1")
	if tr.Status != store.StatusInterrupted || tr.StatusReason != ReasonStopped {
		t.Fatalf("after stop: %s %q", tr.Status, tr.StatusReason)
	}
	if reqs, _ := h.o.PendingRequests(ctx, "t1"); len(reqs) != 0 {
		t.Fatalf("pending after stop: %+v", reqs)
	}
	if len(s.callsOf("Stop")) != 1 {
		t.Fatal("session not stopped")
	}
}

func TestCrashErrorsWithStderrTail(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	s.send(msgEv("a1", agent.RoleAssistant, "partial"))
	s.end(errors.New("agent exited with status 3: panic: out of cheese"))
	tr := waitStatus(t, h.db, "t1", store.StatusErrored)
	if !strings.Contains(tr.StatusReason, "out of cheese") {
		t.Fatalf("reason %q", tr.StatusReason)
	}
	if msgs, _ := h.o.Messages(ctx, "t1"); len(msgs) != 2 {
		t.Fatalf("messages %+v", msgs)
	}
}

func TestFatalErrorAndRateLimit(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	retry := int64(30000)
	s.send(agent.Event{Type: agent.EventRateLimit, RetryAfterMs: &retry, Attempt: 1, MaxRetries: 2, Error: "429 Too Many Requests"})
	waitFor(t, "rate limit reason", func() bool {
		tr := loadTask(t, h.db, "t1")
		return tr.Status == store.StatusRunning && strings.Contains(tr.StatusReason, "retrying in 30s (attempt 1 of 2)")
	})
	evs, _ := store.TaskEvents(ctx, h.db.R, "t1", "rate-limit")
	if len(evs) != 1 || !strings.Contains(string(evs[0].Data), `"retryAfterMs":30000`) {
		t.Fatalf("stored rate limits %+v", evs)
	}
	s.send(agent.Event{Type: agent.EventError, Error: "API Error: 429 daily quota exceeded", Fatal: true})
	s.send(agent.Event{Type: agent.EventComplete, Result: &agent.Result{IsError: true, Text: "API Error"}})
	tr := waitStatus(t, h.db, "t1", store.StatusErrored)
	if tr.StatusReason != "API Error: 429 daily quota exceeded" {
		t.Fatalf("reason %q", tr.StatusReason)
	}
	var sawRL bool
	for _, e := range h.rec.agentEvents("t1") {
		if e.Event.Type == agent.EventRateLimit && *e.Event.RetryAfterMs == 30000 {
			sawRL = true
		}
	}
	if !sawRL {
		t.Fatal("rate-limit not emitted")
	}
}

func TestSetModeLiveAndStored(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	if err := h.o.SetMode(ctx, "t1", agent.ModePlan); err != nil {
		t.Fatal(err)
	}
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	if s.cfg.Mode != agent.ModePlan {
		t.Fatalf("started in %s", s.cfg.Mode)
	}
	if err := h.o.SetMode(ctx, "t1", agent.ModeBypass); err != nil {
		t.Fatal(err)
	}
	if got := s.callsOf("SetMode"); len(got) != 1 || got[0] != agent.ModeBypass {
		t.Fatalf("SetMode calls %v", got)
	}
	if tr := loadTask(t, h.db, "t1"); tr.InteractionMode != "bypass" {
		t.Fatalf("stored mode %s", tr.InteractionMode)
	}
	if err := h.o.SetMode(ctx, "t1", "yolo"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad mode: %v", err)
	}
	if err := h.o.SetModel(ctx, "t1", "opus"); !errors.Is(err, agent.ErrUnsupported) {
		t.Fatalf("SetModel on a session without ModelSetter: %v", err)
	}
}

func TestNotificationsOnlyWhenUnfocusedAndEnabled(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	h.o.SetWindowFocused(true)
	s.send(permEv("r1", "Bash", "ls"))
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	h.o.SetWindowFocused(false)
	if _, err := h.db.W.Exec(`INSERT INTO settings (key, value) VALUES ('notify.complete', 'false')`); err != nil {
		t.Fatal(err)
	}
	_ = h.o.RespondToPermission(ctx, "t1", "r1", PermissionAnswer{Behavior: agent.Allow})
	s.send(completeEv("done"))
	waitStatus(t, h.db, "t1", store.StatusCompleted)
	s.send(agent.Event{Type: agent.EventQuestion, Request: &agent.Request{RequestID: "q", Question: "ok?"}})
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	waitFor(t, "question notification", func() bool { return len(h.nt.list()) > 0 })
	ns := h.nt.list()
	if len(ns) != 1 || ns[0].Kind != notify.KindQuestion {
		t.Fatalf("notifications %+v (want only the question)", ns)
	}
}

func TestStartFailureErrorsTask(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	h.be.startErr = errors.New("Claude Code not found: " + agent.ErrBinaryNotFound.Error())
	if err := h.o.Start(ctx, "t1"); err == nil {
		t.Fatal("no error")
	}
	tr := loadTask(t, h.db, "t1")
	if tr.Status != store.StatusErrored || !strings.Contains(tr.StatusReason, "not found") {
		t.Fatalf("%s %q", tr.Status, tr.StatusReason)
	}
	addTask(t, h.db, "t2", "nope", "go")
	if err := h.o.Start(ctx, "t2"); !errors.Is(err, agent.ErrUnknownBackend) {
		t.Fatalf("unknown backend: %v", err)
	}
}

func TestCloseStopsEverySession(t *testing.T) {
	db := openDB(t)
	h := newHarness(t, Options{DB: db})
	ctx := context.Background()
	var ss []*fakeSession
	for _, id := range []string{"t1", "t2", "t3"} {
		addTask(t, db, id, "fake", "go")
		if err := h.o.Start(ctx, id); err != nil {
			t.Fatal(err)
		}
		ss = append(ss, h.be.next(t))
	}
	if err := h.o.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for i, s := range ss {
		if len(s.callsOf("Stop")) != 1 {
			t.Fatalf("session %d not stopped", i)
		}
	}
	for _, id := range []string{"t1", "t2", "t3"} {
		tr := loadTask(t, db, id)
		if tr.Status != store.StatusInterrupted || tr.StatusReason != ReasonAppClosed {
			t.Fatalf("%s: %s %q", id, tr.Status, tr.StatusReason)
		}
	}
	addTask(t, db, "t4", "fake", "go")
	if err := h.o.Start(ctx, "t4"); !errors.Is(err, ErrClosed) {
		t.Fatalf("start after close: %v", err)
	}
}

func TestClosingKeepsIdleTasksAsTheyEnded(t *testing.T) {
	db := openDB(t)
	h := newHarness(t, Options{DB: db})
	ctx := context.Background()
	addTask(t, db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	s.send(completeEv("done"))
	waitStatus(t, db, "t1", store.StatusCompleted)
	if err := h.o.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if len(s.callsOf("Stop")) != 1 {
		t.Fatal("idle session not stopped")
	}
	if tr := loadTask(t, db, "t1"); tr.Status != store.StatusCompleted || tr.StatusReason != "" {
		t.Fatalf("idle task after close: %s %q", tr.Status, tr.StatusReason)
	}
}

func TestDeletingARunningTaskStopsItsSession(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	_ = h.o.Start(ctx, "t1")
	s := h.be.next(t)
	if _, err := h.db.W.Exec(`DELETE FROM tasks WHERE id = 't1'`); err != nil {
		t.Fatal(err)
	}
	s.send(msgEv("a1", agent.RoleAssistant, "still talking"))
	waitFor(t, "session stopped", func() bool { return len(s.callsOf("Stop")) == 1 && len(h.o.Running()) == 0 })
}

// Deltas held in the coalescing window go out as one event per run of the
// same part (fewer webview deliveries), and a whole message supersedes the
// deltas of it still pending: applying what was emitted gives the message.
func TestCoalescingJoinsDeltas(t *testing.T) {
	rec := newRecorder(t, nil)
	e := newTaskEmitter(rec, "t", 1<<40) // never fires by itself
	whole := func(txt string) agent.Event {
		return agent.Event{Type: agent.EventMessage, Message: &agent.Message{ID: "m1", Parts: []agent.Part{{Type: agent.PartText, Text: txt}}}}
	}
	delta := func(id string, part int, txt string) agent.Event {
		return agent.Event{Type: agent.EventDelta, MessageID: id, Delta: &agent.Delta{Part: part, Field: agent.DeltaText, Text: txt}}
	}
	e.message(whole("a"), testTime)
	e.agentEvent(agent.Event{Type: agent.EventSessionID, SessionID: "s"}, testTime) // flushes m1:a
	for _, s := range []string{"b", "c", "d"} {
		e.delta(delta("m1", 0, s), testTime)
	}
	e.delta(delta("m2", 0, "x"), testTime)
	e.delta(delta("m1", 0, "e"), testTime)
	e.agentEvent(agent.Event{Type: agent.EventComplete}, testTime)
	for _, s := range []string{"f", "g"} {
		e.delta(delta("m1", 0, s), testTime)
	}
	e.message(whole("abcdefgh"), testTime) // supersedes the pending f, g
	e.flush()
	var got []string
	for _, p := range rec.agentEvents("t") {
		switch {
		case p.Event.Delta != nil:
			got = append(got, "delta:"+p.Event.MessageID+":"+p.Event.Delta.Text)
		case p.Event.Message != nil:
			got = append(got, "message:"+p.Event.Message.Parts[0].Text)
		default:
			got = append(got, string(p.Event.Type))
		}
	}
	want := []string{"message:a", "session-id", "delta:m1:bcd", "delta:m2:x", "delta:m1:e", "complete", "message:abcdefgh"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

// TestBypassModeAllowsEveryRequest: a task in bypass mode never asks the
// user: the app allows each permission request itself and stores the
// decision (Claude Code asks under its always-on ask rule even in bypass);
// switched to ask, the next request waits for the user.
func TestBypassModeAllowsEveryRequest(t *testing.T) {
	h := newHarness(t, Options{})
	ctx := context.Background()
	addTask(t, h.db, "t1", "fake", "go")
	if err := h.o.SetMode(ctx, "t1", agent.ModeBypass); err != nil {
		t.Fatal(err)
	}
	if err := h.o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s := h.be.next(t)
	s.send(permEv("r1", "Bash", "cat hello.txt"))
	waitFor(t, "auto answer", func() bool { return len(s.callsOf("RespondToPermission")) == 1 })
	got := s.callsOf("RespondToPermission")[0].([2]any)
	if got[0] != "r1" || got[1].(agent.PermissionResponse).Behavior != agent.Allow {
		t.Fatalf("auto answer = %+v", got)
	}
	ds, _ := h.o.Decisions(ctx, "t1")
	if len(ds) != 1 || ds[0].Source != store.SourceMode || ds[0].Behavior != string(agent.Allow) || ds[0].Label != "allowed: bypass mode" {
		t.Fatalf("decisions = %+v", ds)
	}
	if reqs, _ := h.o.PendingRequests(ctx, "t1"); len(reqs) != 0 {
		t.Fatalf("pending in bypass mode = %+v", reqs)
	}
	if tr := loadTask(t, h.db, "t1"); tr.Status != store.StatusRunning {
		t.Fatalf("status = %s, want running (bypass never waits)", tr.Status)
	}

	if err := h.o.SetMode(ctx, "t1", agent.ModeAsk); err != nil {
		t.Fatal(err)
	}
	s.send(permEv("r2", "Bash", "cat hello.txt"))
	waitStatus(t, h.db, "t1", store.StatusWaiting)
	if reqs, _ := h.o.PendingRequests(ctx, "t1"); len(reqs) != 1 || reqs[0].RequestID != "r2" {
		t.Fatalf("pending in ask mode = %+v", reqs)
	}
	if n := len(s.callsOf("RespondToPermission")); n != 1 {
		t.Fatalf("%d answers, want only the bypass one", n)
	}
}

// TestCoalescingThrottlesFromTheLastFlush: held-back updates go out one
// window after the last flush, not one window after they came: an update
// that comes when a window has passed since the last flush (late, after a
// stall) goes out at once; one that comes within it is held until the
// window ends; the flush that sends it starts the next window.
func TestCoalescingThrottlesFromTheLastFlush(t *testing.T) {
	rec := newRecorder(t, nil)
	e := newTaskEmitter(rec, "t", time.Hour)
	msg := func(id string) {
		e.message(agent.Event{Type: agent.EventMessage, Message: &agent.Message{ID: id}}, testTime)
	}
	msg("held")
	time.Sleep(50 * time.Millisecond)
	if n := len(rec.agentEvents("t")); n != 0 {
		t.Fatalf("%d events out within the window after the emitter was made", n)
	}
	e.mu.Lock()
	e.timer.Stop()
	e.timer = nil
	e.last = time.Now().Add(-2 * time.Hour) // the window since the last flush has passed
	e.mu.Unlock()
	msg("late")
	waitFor(t, "the late update, at once", func() bool { return len(rec.agentEvents("t")) == 2 })
	msg("next")
	time.Sleep(50 * time.Millisecond)
	if n := len(rec.agentEvents("t")); n != 2 {
		t.Fatalf("an update right after a flush went out (%d events): flushes must stay a window apart", n)
	}
}
