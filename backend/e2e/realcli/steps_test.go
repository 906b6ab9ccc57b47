package realcli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/store"
)

var (
	allowOnce = orchestrator.PermissionAnswer{Behavior: agent.Allow, Scope: "once"}
	denyOnce  = orchestrator.PermissionAnswer{Behavior: agent.Deny, Message: "not this one"}
)

// run runs the steps in order as subtests (their names are the table's
// columns in docs/agents.md); each turn's end checks that no tool call is
// left open.
func (h *harness) run() {
	steps := []struct {
		name string
		fn   func(testing.TB)
	}{
		{"text", h.stepText},
		{"allow", h.stepAllow},
		{"ask-readonly", h.stepAskReadOnly},
		{"deny", h.stepDeny},
		{"followup", h.stepFollowup},
		{"stop", h.stepStop},
		{"followup-after-stop", h.stepAfterStop},
		{"store-and-emits", h.stepStore},
	}
	for _, s := range steps {
		h.t.Run(s.name, func(t *testing.T) {
			start := time.Now()
			seq, _ := store.NextRawSeq(context.Background(), h.db.R, h.task)
			h.known = h.toolIDs(t)
			failed := runStep(t, knownFailures[h.t.Name()+"/"+s.name], s.fn)
			t.Logf("%s: %s", s.name, time.Since(start).Round(time.Millisecond))
			if failed {
				h.logFrames(t, seq)
			}
			h.settle(t)
		})
	}
}

// knownFailures are steps that fail on a real CLI for a reason not fixed
// yet (issue #13). Such a step still runs in full: what fails is logged
// loudly as KNOWN FAILURE and does not fail the suite; when it passes, the
// log says to remove it from this list.
var knownFailures = map[string]string{
	"TestCodexACP/ask-readonly": "codex-acp 0.16.0 (Codex core at git f221438) runs `cat hello.txt` unasked under " +
		"approval_policy=\"untrusted\": core/src/exec_policy.rs render_decision_for_unmatched_command allows a command " +
		"is_known_safe_command accepts (cat, ls, grep, head, …) when the policy is UnlessTrusted. Only an execpolicy " +
		"prompt rule in a Codex config folder ($CODEX_HOME/rules, the project's .codex/rules, /etc/codex/rules: none the " +
		"app's) overrides that, and the same rule makes bypass (full-access, policy never) refuse the command " +
		"(TestCodexACPPromptRuleFacts)",
}

// runStep runs fn against t, or, for a known failure, against a recorder
// that logs what fails instead of failing. It reports whether fn failed.
func runStep(t *testing.T, known string, fn func(testing.TB)) bool {
	if known == "" {
		fn(t)
		return t.Failed()
	}
	st := &softT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(st)
	}()
	<-done
	if st.failed {
		t.Logf("KNOWN FAILURE (issue #13: %s): %s", known, strings.Join(st.msgs, "; "))
	} else {
		t.Logf("KNOWN FAILURE NOW PASSES (%s): remove it from knownFailures", known)
	}
	return st.failed
}

// softT is a testing.TB whose failures are recorded, not reported.
type softT struct {
	testing.TB
	failed bool
	msgs   []string
}

func (s *softT) record(msg string) { s.failed, s.msgs = true, append(s.msgs, msg) }

func (s *softT) Error(a ...any)            { s.record(fmt.Sprint(a...)) }
func (s *softT) Errorf(f string, a ...any) { s.record(fmt.Sprintf(f, a...)) }
func (s *softT) Fail()                     { s.record("failed") }
func (s *softT) Failed() bool              { return s.failed }
func (s *softT) Fatal(a ...any)            { s.record(fmt.Sprint(a...)); runtime.Goexit() }
func (s *softT) Fatalf(f string, a ...any) { s.record(fmt.Sprintf(f, a...)); runtime.Goexit() }
func (s *softT) FailNow()                  { s.record("failed"); runtime.Goexit() }

// logFrames logs the raw frames stored from seq on (each cut to 600
// bytes): what the agent said when a step fails.
func (h *harness) logFrames(t testing.TB, seq int64) {
	t.Helper()
	n := 0
	for f, err := range store.RawFrames(context.Background(), h.db.R, h.task) {
		if err != nil || f.Seq < seq {
			continue
		}
		if n++; n > 80 {
			t.Logf("… more raw frames")
			return
		}
		d := string(f.Data)
		if len(d) > 600 {
			d = d[:600] + "…"
		}
		t.Logf("raw %d %s: %s", f.Seq, f.Format, d)
	}
}

func (h *harness) stepText(t testing.TB) {
	h.send(t, "text", "[scenario:text] Say hello.")
	if asked := h.answerUntilIdle(t, 3*time.Minute, allowOnce); len(asked) != 0 {
		t.Errorf("a plain text turn asked for %v", asked)
	}
	wantStatus(t, h, store.StatusCompleted)
	msgs := h.messages(t)
	if !strings.Contains(texts(msgs, agent.RoleUser), "[scenario:text] Say hello.") {
		t.Errorf("the prompt is not stored as a user message:\n%s", texts(msgs, agent.RoleUser))
	}
	wantText(t, msgs, textAnswer)
	if h.status().SessionID == "" {
		t.Error("no session id stored")
	}
	h.checkClosed(t)
}

// stepAllow: a file write and a shell command, each asked (in ask mode)
// and allowed.
func (h *harness) stepAllow(t testing.TB) {
	ctx := context.Background()
	decisions0, _ := h.orch.Decisions(ctx, h.task)
	reqs0 := len(h.rec.agentEvents(agent.EventPermissionRequest))
	h.send(t, "main", "[scenario:main] Create hello.txt with a greeting, then run a command.")
	asked := h.answerUntilIdle(t, 3*time.Minute, allowOnce)
	t.Logf("asked for %v", asked)
	wantStatus(t, h, store.StatusCompleted)
	fileIs(t, filepath.Join(h.proj, "hello.txt"), "Hello from the fake model!")
	fileIs(t, filepath.Join(h.proj, "shell.txt"), "shell-ran")
	msgs := h.messages(t)
	for _, want := range []string{allowFirst, allowSecond, allowDone} {
		wantText(t, msgs, want)
	}
	edits, execs := tools(msgs, agent.ToolEdit), tools(msgs, agent.ToolExecute)
	if len(edits) == 0 || len(execs) == 0 {
		t.Errorf("stored tool calls: %d edit, %d execute; want an edit and a command", len(edits), len(execs))
	}
	var ids []string
	for _, p := range slices.Concat(edits, execs) {
		if strings.Contains(string(p.Input), "hello.txt") || strings.Contains(string(p.Input), "echo shell-ran") {
			ids = append(ids, p.ToolID)
		}
	}
	for _, id := range ids {
		if !toolFinished(msgs, id) {
			t.Errorf("tool %s has no successful result stored", id)
		}
	}
	if len(ids) < 2 {
		t.Errorf("the write and the command are not both among the stored tool calls (edits %d, executes %d)", len(edits), len(execs))
	}
	h.checkClosed(t)
	if !h.c.asks {
		if len(asked) != 0 {
			t.Errorf("asked for %v in %s mode", asked, h.c.mode)
		}
		return
	}
	// Ask mode asks before the edit and before the command.
	switch {
	case h.c.wantAsked != nil && !slices.Equal(asked, h.c.wantAsked):
		t.Errorf("permissions asked for %v, want %v", asked, h.c.wantAsked)
	case len(asked) < 2:
		t.Errorf("ASK MODE DID NOT ASK: %d permission request(s) %v for a write and a command, want one before each", len(asked), asked)
	}
	decisions, _ := h.orch.Decisions(ctx, h.task)
	if len(decisions)-len(decisions0) != len(asked) {
		t.Errorf("%d permission decisions stored for %d answers", len(decisions)-len(decisions0), len(asked))
	}
	if n := len(h.rec.agentEvents(agent.EventPermissionRequest)) - reqs0; n != len(asked) {
		t.Errorf("%d permission-request events emitted for %d requests", n, len(asked))
	}
}

// stepAskReadOnly: a read-only command (`cat hello.txt`) must be asked
// in ask mode like any other command (issue #13: "Ask asks before any
// command or edit"); allowed, it runs and the model answers. An agent
// that cannot ask (headless Gemini) is switched to ask mode and must not
// run it unasked.
func (h *harness) stepAskReadOnly(t testing.TB) {
	ctx := context.Background()
	if !h.c.asks {
		if err := h.orch.SetMode(ctx, h.task, agent.ModeAsk); err != nil {
			t.Fatalf("set mode ask: %v", err)
		}
		defer func() { _ = h.orch.SetMode(ctx, h.task, h.c.mode) }()
	}
	decisions0, _ := h.orch.Decisions(ctx, h.task)
	h.send(t, "readonly", "[scenario:readonly] Show me hello.txt.")
	asked := h.answerUntilIdle(t, 3*time.Minute, allowOnce)
	t.Logf("asked for %v", asked)
	msgs := h.messages(t)
	var ran []string // this step's cat calls (of any kind: codex-acp calls it "read") with a successful result
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == agent.PartToolUse && !h.known[p.ToolID] && strings.Contains(string(p.Input), "cat hello.txt") &&
				toolFinished(msgs, p.ToolID) {
				ran = append(ran, p.ToolID)
			}
		}
	}
	h.checkClosed(t)
	if !h.c.asks {
		if len(asked) != 0 || len(ran) != 0 {
			t.Errorf("headless agent in ask mode: asked %v, ran %v; want neither", asked, ran)
		}
		return
	}
	if len(asked) == 0 {
		t.Errorf("ASK MODE DID NOT ASK before the read-only command `cat hello.txt` (ran unasked: %v)", ran)
	}
	wantStatus(t, h, store.StatusCompleted)
	if len(ran) == 0 {
		t.Errorf("the allowed `cat hello.txt` has no successful result stored")
	}
	wantText(t, msgs, readonlyDone)
	decisions, _ := h.orch.Decisions(ctx, h.task)
	if len(decisions)-len(decisions0) != len(asked) {
		t.Errorf("%d permission decisions stored for %d answers", len(decisions)-len(decisions0), len(asked))
	}
}

// stepDeny: a command asked and denied never runs; the turn ends and the
// tool is closed. An agent that cannot ask (headless Gemini) is switched
// to ask mode and must refuse the command by itself.
func (h *harness) stepDeny(t testing.TB) {
	ctx := context.Background()
	if !h.c.asks {
		if err := h.orch.SetMode(ctx, h.task, agent.ModeAsk); err != nil {
			t.Fatalf("set mode ask: %v", err)
		}
		defer func() { _ = h.orch.SetMode(ctx, h.task, h.c.mode) }()
	}
	h.send(t, "deny", "[scenario:deny] Create denied.txt with touch.")
	asked := h.answerUntilIdle(t, 3*time.Minute, denyOnce)
	t.Logf("asked for %v", asked)
	if _, err := os.Stat(filepath.Join(h.proj, "denied.txt")); err == nil {
		t.Errorf("denied.txt was created: the command ran although it was denied (asked %v)", asked)
	}
	if h.c.asks && len(asked) == 0 {
		t.Error("ASK MODE DID NOT ASK before `touch denied.txt`")
	}
	if !h.c.asks && len(asked) != 0 {
		t.Errorf("headless agent asked %v", asked)
	}
	tr := h.status()
	if tr.Status == store.StatusErrored {
		t.Errorf("after a deny the task is %s (%q)", tr.Status, tr.StatusReason)
	}
	msgs := h.messages(t)
	if !strings.Contains(texts(msgs, agent.RoleAssistant), denyDone) {
		t.Logf("the model's answer after the deny (%q) is not stored: the agent ended the turn on the deny (task %s)", denyDone, tr.Status)
	}
	h.checkClosed(t)
}

func (h *harness) stepFollowup(t testing.TB) {
	h.send(t, "followup", "[scenario:followup] Anything else?")
	if asked := h.answerUntilIdle(t, 3*time.Minute, allowOnce); len(asked) != 0 {
		t.Errorf("the follow-up asked for %v", asked)
	}
	wantStatus(t, h, store.StatusCompleted)
	msgs := h.messages(t)
	if !strings.Contains(texts(msgs, agent.RoleUser), "[scenario:followup] Anything else?") {
		t.Errorf("the follow-up is not stored as a user message")
	}
	wantText(t, msgs, followupAnswer)
	h.checkClosed(t)
}

// stepStop: a slow turn stopped mid-stream.
func (h *harness) stepStop(t testing.TB) {
	ctx := context.Background()
	h.send(t, "slow", "[scenario:slow] Count slowly.")
	// Let a few ticks stream (agents that store only whole messages show
	// none before the stop).
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if strings.Contains(texts(h.messages(t), agent.RoleAssistant), "tick 2.") {
			break
		}
	}
	stopAt := time.Now()
	if err := h.orch.Stop(ctx, h.task); err != nil {
		t.Fatalf("stop: %v", err)
	}
	h.waitFor(t, "the stop", 30*time.Second, func() bool { return h.status().Status == store.StatusInterrupted })
	t.Logf("stopped in %s", time.Since(stopAt).Round(time.Millisecond))
	if r := h.orch.Running(); slices.Contains(r, h.task) {
		t.Errorf("task still has a live session after Stop: %v", r)
	}
	h.checkClosed(t)
}

// stepAfterStop: a follow-up to the stopped task resumes its session.
func (h *harness) stepAfterStop(t testing.TB) {
	h.send(t, "afterstop", "[scenario:afterstop] Are you still there?")
	if asked := h.answerUntilIdle(t, 3*time.Minute, allowOnce); len(asked) != 0 {
		t.Errorf("the follow-up after stop asked for %v", asked)
	}
	wantStatus(t, h, store.StatusCompleted)
	msgs := h.messages(t)
	if !strings.Contains(texts(msgs, agent.RoleUser), "[scenario:afterstop] Are you still there?") {
		t.Errorf("the follow-up after stop is not stored as a user message")
	}
	wantText(t, msgs, afterStopAnswer)
	h.checkClosed(t)
}

// stepStore: raw frames in order and of the backend's format, the
// statuses emitted, every emitted message stored, requests emitted.
func (h *harness) stepStore(t testing.TB) {
	ctx := context.Background()
	n, err := store.CountRawFrames(ctx, h.db.R, h.task)
	if err != nil || n == 0 {
		t.Fatalf("raw frames: %d, %v", n, err)
	}
	formats := map[string]int{}
	var lastSeq int64 = -1
	for f, err := range store.RawFrames(ctx, h.db.R, h.task) {
		if err != nil {
			t.Fatal(err)
		}
		if f.Seq <= lastSeq {
			t.Errorf("raw frame seq %d after %d", f.Seq, lastSeq)
		}
		lastSeq = f.Seq
		formats[f.Format]++
	}
	if formats[h.c.format] == 0 {
		t.Errorf("no raw frames of format %q stored: %v", h.c.format, formats)
	}
	st := h.rec.statuses()
	want := []string{"running", "completed", "interrupted"}
	if h.c.asks {
		want = append(want, "waiting")
	}
	for _, w := range want {
		if !slices.Contains(st, w) {
			t.Errorf("status %q never emitted: %v", w, st)
		}
	}
	if len(st) == 0 || st[len(st)-1] != "completed" {
		t.Errorf("last emitted status is not completed: %v", st)
	}
	stored := map[string]bool{}
	for _, m := range h.messages(t) {
		stored[m.ID] = true
	}
	removed := map[string]bool{}
	for _, e := range h.rec.agentEvents(agent.EventMessageRemoved) {
		removed[e.MessageID] = true
	}
	for _, e := range h.rec.agentEvents(agent.EventMessage) {
		if !stored[e.Message.ID] && !removed[e.Message.ID] {
			t.Errorf("emitted message %s (%s) is not in the store", e.Message.ID, e.Message.Role)
		}
	}
	if h.c.asks {
		reqEmits := 0
		for _, e := range h.rec.all() {
			if e.name == "requests:updated" {
				reqEmits++
			}
		}
		if reqEmits < 6 { // each of the 3 requests appears, then goes
			t.Errorf("%d requests:updated emits, want >= 6", reqEmits)
		}
	}
	t.Logf("%s: %d raw frames %v, statuses %v, %d model requests, total %s", h.c.format, n, formats, st,
		len(h.model.Requests()), time.Since(h.start).Round(time.Millisecond))
}
