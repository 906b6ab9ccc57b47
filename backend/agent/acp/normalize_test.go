package acp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jean-claude/jean-claude/backend/agent"
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

// render is the golden form of events: one JSON object per line.
func render(t testing.TB, evs []agent.Event) []byte {
	var b bytes.Buffer
	for _, ev := range evs {
		line, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for _, path := range recordings(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			got := render(t, normalizeFile(t, path))
			golden := filepath.Join("testdata", "TestGolden", name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("events differ (-want +got):\n%s", d)
			}
		})
	}
}

// TestRebuildFromRaw checks the contract on Event.Raw: feeding a message's
// raw frames to a fresh normalizer gives the same message, same id.
func TestRebuildFromRaw(t *testing.T) {
	for _, path := range recordings(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			last := map[string]agent.Event{}
			for _, ev := range normalizeFile(t, path) {
				if ev.Type == agent.EventMessage {
					last[ev.Message.ID] = ev
				}
			}
			if len(last) == 0 {
				t.Skip("no messages")
			}
			for id, ev := range last {
				var rebuilt *agent.Message
				for e := range agent.Normalize(Format(), bytes.NewReader(ev.Raw)) {
					if e.Type == agent.EventMessage && e.Message.ID == id {
						rebuilt = e.Message
					}
				}
				if rebuilt == nil {
					t.Errorf("message %s: not rebuilt from its raw frames", id)
					continue
				}
				if d := cmp.Diff(ev.Message, rebuilt); d != "" {
					t.Errorf("message %s rebuilt differently (-live +rebuilt):\n%s", id, d)
				}
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
		"auto": agent.ModeAsk, "full-access": agent.ModeBypass, "weird": "weird",
	} {
		if got := ModeFromAgent(id); got != want {
			t.Errorf("ModeFromAgent(%q) = %q, want %q", id, got, want)
		}
	}
	codex := []string{"read-only", "auto", "full-access"}
	if got, _ := AgentModeFor(codex, agent.ModeAsk); got != "auto" {
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
