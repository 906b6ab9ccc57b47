package claude

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recordings lists the stdout recordings in testdata (not the .stdin ones).
func recordings(t testing.TB) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range all {
		if !strings.HasSuffix(p, ".stdin.jsonl") {
			out = append(out, p)
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d recordings in testdata", len(out))
	}
	return out
}

func normalizeFile(t testing.TB, path string) []agent.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []agent.Event
	for ev, err := range agent.Normalize(Format(), f) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func eventLines(t testing.TB, evs []agent.Event) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, ev := range evs {
		j, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestGolden normalizes every recording and compares with its golden file.
func TestGolden(t *testing.T) {
	for _, path := range recordings(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			got := eventLines(t, normalizeFile(t, path))
			golden := filepath.Join("testdata", "golden", name+".golden.jsonl")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if d := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); d != "" {
				t.Errorf("%s (-want +got):\n%s", golden, d)
			}
		})
	}
}

// TestRenormalizeMessages feeds each message event's Raw to a fresh
// normalizer: the last message it produces must equal the original.
func TestRenormalizeMessages(t *testing.T) {
	for _, path := range recordings(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			for _, ev := range normalizeFile(t, path) {
				if ev.Type != agent.EventMessage {
					continue
				}
				if len(ev.Raw) == 0 {
					t.Fatalf("message %s has no Raw", ev.Message.ID)
				}
				n := NewNormalizer()
				var last *agent.Message
				for _, line := range bytes.Split(ev.Raw, []byte("\n")) {
					for _, e := range n.Feed(line) {
						if e.Type == agent.EventMessage && e.Message.ID == ev.Message.ID {
							last = e.Message
						}
					}
				}
				if last == nil {
					t.Fatalf("re-normalizing %s gave no message", ev.Message.ID)
				}
				if d := cmp.Diff(ev.Message, last); d != "" {
					t.Errorf("message %s re-normalized differs (-live +renormalized):\n%s", ev.Message.ID, d)
				}
			}
		})
	}
}

func feedAll(lines ...string) []agent.Event {
	n := NewNormalizer()
	var evs []agent.Event
	for _, l := range lines {
		evs = append(evs, n.Feed([]byte(l))...)
	}
	return append(evs, n.Flush()...)
}

func ofType(evs []agent.Event, t agent.EventType) []agent.Event {
	var out []agent.Event
	for _, e := range evs {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

func TestSessionIDOnce(t *testing.T) {
	evs := normalizeFile(t, filepath.Join("testdata", "bidi_main_bypass.jsonl"))
	ids := ofType(evs, agent.EventSessionID)
	if len(ids) != 1 || ids[0].SessionID == "" {
		t.Fatalf("session-id events: %+v", ids)
	}
	if evs[0].Type != agent.EventSessionID {
		t.Errorf("first event is %s, want session-id", evs[0].Type)
	}
}

func TestAssistantLinesMergeIntoOneMessage(t *testing.T) {
	evs := normalizeFile(t, filepath.Join("testdata", "main_print_bypass.jsonl"))
	last := map[string]*agent.Message{}
	var order []string
	for _, e := range ofType(evs, agent.EventMessage) {
		if e.Message.Role != agent.RoleAssistant {
			continue
		}
		if _, ok := last[e.Message.ID]; !ok {
			order = append(order, e.Message.ID)
		}
		last[e.Message.ID] = e.Message
	}
	first := last[order[0]]
	if first.Role != agent.RoleAssistant || len(first.Parts) != 3 {
		t.Fatalf("first message: %+v", first)
	}
	want := []agent.PartType{agent.PartReasoning, agent.PartText, agent.PartToolUse}
	for i, p := range first.Parts {
		if p.Type != want[i] {
			t.Errorf("part %d is %s, want %s", i, p.Type, want[i])
		}
	}
	if first.Parts[2].Kind != agent.ToolEdit || first.Parts[2].ToolName != "Write" {
		t.Errorf("tool part: %+v", first.Parts[2])
	}
}

func TestPermissionAndQuestionRequests(t *testing.T) {
	evs := normalizeFile(t, filepath.Join("testdata", "bidi_perm_allow.jsonl"))
	reqs := ofType(evs, agent.EventPermissionRequest)
	if len(reqs) != 1 {
		t.Fatalf("%d permission requests", len(reqs))
	}
	r := reqs[0].Request
	if r.RequestID != "274591c8-0204-4654-8dda-ef846d007826" || r.ToolName != "Bash" || r.ToolID != "toolu_fake_perm_1_eaf9caf9" || len(r.Suggestions) == 0 {
		t.Errorf("request: %+v", r)
	}
	evs = normalizeFile(t, filepath.Join("testdata", "synthetic_cases.jsonl"))
	qs := ofType(evs, agent.EventQuestion)
	if len(qs) != 1 {
		t.Fatalf("%d questions", len(qs))
	}
	q := qs[0].Request
	if q.Question != "Which greeting?" || len(q.Options) != 2 || q.Options[0].Label != "Hello" || len(q.Questions) != 1 {
		t.Errorf("question: %+v", q)
	}
}

func TestCompactionIsOnePart(t *testing.T) {
	evs := normalizeFile(t, filepath.Join("testdata", "synthetic_cases.jsonl"))
	var compacts []*agent.Message
	for _, e := range ofType(evs, agent.EventMessage) {
		if len(e.Message.Parts) > 0 && e.Message.Parts[0].Type == agent.PartCompact {
			compacts = append(compacts, e.Message)
		}
	}
	// compacting status, its boundary (same message), then a manual boundary.
	if len(compacts) != 3 {
		t.Fatalf("%d compact message events", len(compacts))
	}
	if compacts[0].ID != "u-compacting" || compacts[1].ID != "u-compacting" || len(compacts[1].Parts) != 1 {
		t.Errorf("compaction not one message: %+v %+v", compacts[0], compacts[1])
	}
	if p := compacts[1].Parts[0]; p.Trigger != "auto" || p.PreTokens != 155000 {
		t.Errorf("compact part: %+v", p)
	}
	if p := compacts[2].Parts[0]; compacts[2].ID != "u-boundary2" || p.Trigger != "manual" || p.PreTokens != 42000 {
		t.Errorf("manual compact: %+v", compacts[2])
	}
}

func TestAPIErrorAndRateLimit(t *testing.T) {
	evs := normalizeFile(t, filepath.Join("testdata", "err429_print.jsonl"))
	rl := ofType(evs, agent.EventRateLimit)
	if len(rl) != 2 || rl[0].RetryAfterMs == nil || *rl[0].RetryAfterMs != 574 || rl[0].Attempt != 1 || rl[0].MaxRetries != 2 {
		t.Fatalf("rate limits: %+v", rl)
	}
	errs := ofType(evs, agent.EventError)
	if len(errs) != 1 || !errs[0].Fatal || !strings.Contains(errs[0].Error, "429") {
		t.Fatalf("errors: %+v", errs)
	}
	c := ofType(evs, agent.EventComplete)
	if len(c) != 1 || !c[0].Result.IsError || c[0].Result.Reason != "api_error" {
		t.Fatalf("complete: %+v", c)
	}
}

func TestInterruptResult(t *testing.T) {
	evs := normalizeFile(t, filepath.Join("testdata", "bidi_interrupt.jsonl"))
	c := ofType(evs, agent.EventComplete)
	if len(c) != 2 {
		t.Fatalf("%d completes", len(c))
	}
	if r := c[0].Result; !r.Interrupted || r.IsError || r.Reason != "aborted_streaming" {
		t.Errorf("interrupted result: %+v", r)
	}
	if r := c[1].Result; r.Interrupted || r.IsError || r.Reason != "completed" || r.ModelUsage["claude-opus-5-5"].ContextWindow != 1000000 {
		t.Errorf("second result: %+v", r)
	}
}

func TestMalformedAndUnknown(t *testing.T) {
	evs := feedAll(
		`{"type":"brand_new","uuid":"x1","session_id":"s1"}`,
		`{"type":"assistant",`,
		`[1,2]`,
		`{"type":"system","subtype":"brand_new_subtype","uuid":"x2"}`,
		``,
	)
	if len(evs) != 5 {
		t.Fatalf("got %d events: %+v", len(evs), evs)
	}
	if evs[0].Type != agent.EventSessionID || evs[0].SessionID != "s1" {
		t.Errorf("event 0: %+v", evs[0])
	}
	m := evs[1].Message
	if evs[1].Type != agent.EventMessage || m.ID != "x1" || m.Parts[0].Type != agent.PartSystemStatus || m.Parts[0].Subtype != "brand_new" || m.Metadata["raw"] != `{"type":"brand_new","uuid":"x1","session_id":"s1"}` {
		t.Errorf("unknown type: %+v", evs[1])
	}
	for _, e := range evs[2:4] {
		if e.Type != agent.EventError || e.Fatal || len(e.Raw) == 0 {
			t.Errorf("malformed: %+v", e)
		}
	}
	if m := evs[4].Message; m == nil || m.Parts[0].Subtype != "brand_new_subtype" || m.Metadata["raw"] == nil {
		t.Errorf("unknown subtype: %+v", evs[4])
	}
}

func TestStructuredResults(t *testing.T) {
	evs := normalizeFile(t, filepath.Join("testdata", "synthetic_cases.jsonl"))
	got := map[string]*agent.StructuredResult{}
	for _, e := range ofType(evs, agent.EventMessage) {
		for _, p := range e.Message.Parts {
			if p.Type == agent.PartToolResult && p.StructuredResult != nil {
				got[p.ToolID] = p.StructuredResult
			}
		}
	}
	if s := got["toolu_edit"]; s == nil || s.Kind != agent.StructuredWrite || s.Operation != "update" || len(s.StructuredPatch) != 1 || s.OriginalFile == nil {
		t.Errorf("edit: %+v", s)
	}
	if s := got["toolu_skill"]; s == nil || s.Kind != agent.StructuredSkill || !s.Success || s.CommandName != "verify" {
		t.Errorf("skill: %+v", s)
	}
	if s := got["toolu_tc"]; s == nil || s.Kind != agent.StructuredTodo || len(s.NewTodos) != 1 || s.NewTodos[0].Content != "Write tests" {
		t.Errorf("task create: %+v", s)
	}
	if s := got["toolu_tu"]; s == nil || s.Kind != agent.StructuredTodo || s.NewTodos[0].Status != "in_progress" || s.OldTodos[0].Status != "pending" {
		t.Errorf("task update: %+v", s)
	}
	if s := got["toolu_tl"]; s == nil || s.Kind != agent.StructuredTodo || len(s.NewTodos) != 1 {
		t.Errorf("task list: %+v", s)
	}
	evs = normalizeFile(t, filepath.Join("testdata", "todo_print.jsonl"))
	var todo *agent.StructuredResult
	for _, e := range ofType(evs, agent.EventMessage) {
		for _, p := range e.Message.Parts {
			if p.StructuredResult != nil {
				todo = p.StructuredResult
			}
		}
	}
	if todo == nil || todo.Kind != agent.StructuredTodo || len(todo.NewTodos) != 3 || todo.NewTodos[1].Status != "in_progress" {
		t.Errorf("todo: %+v", todo)
	}
}

func TestToolKinds(t *testing.T) {
	cases := map[string]agent.ToolKind{
		"Read": agent.ToolRead, "Write": agent.ToolEdit, "Edit": agent.ToolEdit, "MultiEdit": agent.ToolEdit,
		"NotebookEdit": agent.ToolEdit, "Bash": agent.ToolExecute, "Grep": agent.ToolSearch, "Glob": agent.ToolSearch,
		"LS": agent.ToolSearch, "WebFetch": agent.ToolFetch, "WebSearch": agent.ToolFetch, "TodoWrite": agent.ToolTodo,
		"TaskCreate": agent.ToolTodo, "TaskUpdate": agent.ToolTodo, "TaskList": agent.ToolTodo,
		"AskUserQuestion": agent.ToolAskUser, "Task": agent.ToolSubAgent, "Agent": agent.ToolSubAgent,
		"Skill": agent.ToolSkill, "mcp__github__search": agent.ToolOther,
	}
	for name, want := range cases {
		if got := toolKind(name); got != want {
			t.Errorf("toolKind(%q) = %s, want %s", name, got, want)
		}
	}
}

func TestHostUserTurn(t *testing.T) {
	// What the backend writes to stdin for a user turn normalizes to the
	// user's message, so prompts are kept raw like everything else.
	evs := feedAll(`{"type":"user","session_id":"","uuid":"turn-1","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null}`)
	if len(evs) != 1 || evs[0].Message == nil || evs[0].Message.ID != "turn-1" || evs[0].Message.Role != agent.RoleUser || evs[0].Message.Parts[0].Text != "hi" {
		t.Fatalf("%+v", evs)
	}
}

func TestMultiLineFrameIsCompacted(t *testing.T) {
	evs := feedAll("{\"type\":\"user\",\n\"uuid\":\"m1\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}")
	if len(evs) != 1 || evs[0].Message == nil || bytes.IndexByte(evs[0].Raw, '\n') >= 0 {
		t.Fatalf("%+v", evs)
	}
}

func TestThinkingTokensAreOneMessagePerPhase(t *testing.T) {
	evs := normalizeFile(t, filepath.Join("testdata", "main_print_bypass.jsonl"))
	ids := map[string]int{}
	var last *agent.Message
	for _, e := range ofType(evs, agent.EventMessage) {
		if len(e.Message.Parts) > 0 && e.Message.Parts[0].Subtype == "thinking_tokens" {
			ids[e.Message.ID]++
			last = e.Message
		}
	}
	if len(ids) != 1 || last == nil || last.Metadata["estimatedTokens"] != int64(22) {
		t.Fatalf("thinking messages %v, last %+v", ids, last)
	}
}

// TestRecordedStdinTurns feeds the user turns the recording drivers wrote
// on stdin (what the backend writes and delivers as frames): each is one
// user message with the prompt, with a stable ID even without a uuid.
func TestRecordedStdinTurns(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.stdin.jsonl"))
	if len(files) == 0 {
		t.Fatal("no stdin recordings")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for l := range agent.Lines(bytes.NewReader(data)) {
			h, _ := scanHead(l)
			if string(h.typ) != "user" {
				continue
			}
			evs := NewNormalizer().Feed(l)
			again := NewNormalizer().Feed(l)
			if len(evs) != 1 || evs[0].Message == nil || evs[0].Message.Role != agent.RoleUser ||
				evs[0].Message.Parts[0].Type != agent.PartText || evs[0].Message.Parts[0].Text == "" ||
				evs[0].Message.ID != again[0].Message.ID {
				t.Errorf("%s: %s -> %+v", p, l, evs)
			}
		}
	}
}

// A session idles between turns with its normalizer: what the turn's
// merging needed (its assistant messages, its open tool calls) is let go
// when the turn ends, not kept at the size it grew to (issue 20).
func TestTurnEndLetsGoOfTheTurnsState(t *testing.T) {
	n := NewNormalizer()
	for i := range 100 {
		n.Feed(fmt.Appendf(nil, `{"type":"assistant","message":{"id":"msg_%d","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_%d","name":"Bash","input":{"command":"ls"}}]},"session_id":"s","uuid":"u%d"}`, i, i, i))
	}
	if len(n.msgs) == 0 || len(n.tools) != 100 {
		t.Fatalf("during the turn: %d messages, %d open tools; want some and 100", len(n.msgs), len(n.tools))
	}
	evs := n.Feed([]byte(`{"type":"result","subtype":"success","is_error":false,"duration_ms":1,"result":"done","session_id":"s","uuid":"r1"}`))
	if len(evs) == 0 {
		t.Fatal("the result gave no events")
	}
	if n.msgs != nil || n.order != nil || n.tools != nil || n.toolsOrder != nil {
		t.Fatalf("after the turn the normalizer still holds %d messages (map %v), %d ordered, %d tools (map %v), %d tool ids",
			len(n.msgs), n.msgs != nil, len(n.order), len(n.tools), n.tools != nil, len(n.toolsOrder))
	}
}
