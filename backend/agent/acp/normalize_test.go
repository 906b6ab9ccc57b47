package acp

import (
	"bytes"

	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recordings are the real ACP sessions in testdata: Gemini CLI's stdout
// (agent → client only) and codex-acp's transcripts (both directions).
func recordings(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings: %v", err)
	}
	return files
}

// normalizeFile runs a recording through a fresh normalizer.
func normalizeFile(t testing.TB, path string) []agent.Event {
	return agenttest.NormalizeFile(t, path, Format())
}

func TestGolden(t *testing.T) {
	for _, path := range recordings(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			golden := filepath.Join("testdata", "TestGolden", name+".golden")
			agenttest.CheckGolden(t, golden, agenttest.Render(t, normalizeFile(t, path)), *update)
		})
	}
}

// TestRebuildFromRaw checks the contract on Event.Raw: feeding a message's
// raw frames to a fresh normalizer gives the same message, same id.
func TestRebuildFromRaw(t *testing.T) {
	for _, path := range recordings(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if agenttest.CheckRebuildFromRaw(t, Format(), normalizeFile(t, path)) == 0 {
				t.Skip("no messages")
			}
		})
	}
}

func TestMalformedAndUnknown(t *testing.T) {
	n := NewNormalizer()
	evs := n.Feed([]byte(`{"jsonrpc":"2.0","method":"session/update","params":`))
	if len(evs) != 1 || evs[0].Type != agent.EventError || evs[0].Fatal || len(evs[0].Raw) == 0 {
		t.Fatalf("malformed line: got %+v", evs)
	}
	frame := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"brand_new_thing","x":1}}}`)
	evs = n.Feed(frame)
	if len(evs) != 1 || evs[0].Type != agent.EventMessage || evs[0].Message.Parts[0].Type != agent.PartSystemStatus {
		t.Fatalf("unknown update: got %+v", evs)
	}
	if evs[0].Message.Metadata["raw"] != string(frame) {
		t.Errorf("unknown update lost its raw line: %v", evs[0].Message.Metadata)
	}
}

func TestPromptErrorIsFatal(t *testing.T) {
	n := NewNormalizer()
	n.Feed([]byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","messageId":"m1","prompt":[]}}`))
	n.Feed([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`))
	evs := n.Feed([]byte(`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error","data":{"details":"boom"}}}`))
	if len(evs) != 1 || evs[0].Type != agent.EventError || !evs[0].Fatal || !strings.Contains(evs[0].Error, "boom") {
		t.Fatalf("got %+v", evs)
	}
}

func TestTurnKeyFromMessageID(t *testing.T) {
	n := NewNormalizer()
	n.Feed([]byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s","messageId":"m1","prompt":[]}}`))
	evs := n.Feed([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"}]}}}`))
	if len(evs) != 1 || evs[0].Message.ID != "m1:assistant" {
		t.Fatalf("got %+v", evs)
	}
	sr := evs[0].Message.Parts[1].StructuredResult
	if sr == nil || sr.Kind != agent.StructuredTodo || len(sr.NewTodos) != 1 || sr.NewTodos[0].Content != "a" {
		t.Fatalf("plan: %+v", evs[0].Message.Parts)
	}
	evs = n.Feed([]byte(`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}`))
	if len(evs) != 2 || evs[1].Type != agent.EventComplete || !evs[1].Result.Interrupted {
		t.Fatalf("cancelled: %+v", evs)
	}
}

func TestModeMapping(t *testing.T) {
	for id, want := range map[string]agent.InteractionMode{
		"default": agent.ModeAsk, "autoEdit": agent.ModeAcceptEdits, "yolo": agent.ModeBypass, "plan": agent.ModePlan,
		"acceptEdits": agent.ModeAcceptEdits, "bypassPermissions": agent.ModeBypass, "read-only": agent.ModePlan,
		// codex-acp's "auto" runs in-project commands unasked (issue 13): not Ask.
		"auto": agent.ModeAcceptEdits, "full-access": agent.ModeBypass, "weird": "weird",
	} {
		if got := ModeFromAgent(id); got != want {
			t.Errorf("ModeFromAgent(%q) = %q, want %q", id, got, want)
		}
	}
	codex := []string{"read-only", "auto", "full-access"}
	// Ask starts codex-acp with Codex's "untrusted" policy (Config.ModeArgs);
	// switched to mid-session, read-only is the closest of its modes.
	if got, _ := AgentModeFor(codex, agent.ModeAsk); got != "read-only" {
		t.Errorf("ask on codex-acp = %q", got)
	}
	if got, _ := AgentModeFor(codex, agent.ModeAcceptEdits); got != "auto" {
		t.Errorf("accept-edits on codex-acp = %q", got)
	}
	gem := []string{"default", "autoEdit", "yolo", "plan"}
	if got, _ := AgentModeFor(gem, agent.ModeBypass); got != "yolo" {
		t.Errorf("bypass on gemini = %q", got)
	}
	if _, ok := AgentModeFor(gem, "nope"); ok {
		t.Error("unknown mode matched")
	}
}

// TestLegacyTurnRowRebuilt: before turns were split into steps, a turn was
// one message "<turn>:assistant" whose raw data was every frame from the
// prompt to its end. Re-normalizing such a stored row gives the whole turn
// again, as the normalizer of then stored it (testdata/legacy: its last
// version, taken from the goldens of then), not only its first step.
func TestLegacyTurnRowRebuilt(t *testing.T) {
	for _, name := range []string{"gemini-acp_main_default-both", "gemini-acp_perm_allow_always-both", "codex-acp-perm"} {
		t.Run(name, func(t *testing.T) {
			var turn [][]byte
			for _, f := range agenttest.ReadFrames(t, Format(), filepath.Join("testdata", name+".jsonl")) {
				if len(turn) > 0 || bytes.Contains(f, []byte(`"session/prompt"`)) {
					turn = append(turn, f)
				}
				if len(turn) > 0 && bytes.Contains(f, []byte(`"stopReason"`)) {
					break
				}
			}
			agenttest.CheckRebuiltAs(t, Format(), bytes.Join(turn, []byte("\n")), filepath.Join("testdata", "legacy", name+".turn.json"))
		})
	}
}
