package agenttest

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestFakeClaudeProtocol drives the fake directly: control requests are
// answered, a user turn replays the script's first turn, EOF ends it.
func TestFakeClaudeProtocol(t *testing.T) {
	bin := BuildFakeClaude(t)
	cmd := exec.Command(bin, "--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--permission-mode", "plan")
	cmd.Env = append(cmd.Environ(), "FAKE_CLAUDE_SCRIPT="+ClaudeRecording(t, "bidi_main_bypass"))
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"type":"control_request","request_id":"r1","request":{"subtype":"initialize"}}`,
		`{"type":"control_request","request_id":"r2","request":{"subtype":"no_such_thing"}}`,
		`{"type":"user","session_id":"","message":{"role":"user","content":[{"type":"text","text":"go"}]},"parent_tool_use_id":null}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var types []string
	for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var m struct {
			Type     string `json:"type"`
			Response struct {
				Subtype   string         `json:"subtype"`
				RequestID string         `json:"request_id"`
				Response  map[string]any `json:"response"`
			} `json:"response"`
		}
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("bad line %s: %v", l, err)
		}
		types = append(types, m.Type)
		if m.Type == "control_response" {
			switch m.Response.RequestID {
			case "r1":
				if m.Response.Subtype != "success" || m.Response.Response["current_permission_mode"] != "plan" {
					t.Errorf("initialize answer: %s", l)
				}
			case "r2":
				if m.Response.Subtype != "error" {
					t.Errorf("unknown subtype answer: %s", l)
				}
			}
		}
	}
	// Two answers, then the recording's first turn, ending with its result.
	if len(types) < 5 || types[0] != "control_response" || types[1] != "control_response" || types[len(types)-1] != "result" {
		t.Errorf("line types: %v", types)
	}
	if strings.Count(strings.Join(types, " "), "result") != 1 {
		t.Errorf("want exactly one turn: %v", types)
	}
}

func TestFakeClaudeRefusesPrintMode(t *testing.T) {
	cmd := exec.Command(BuildFakeClaude(t), "-p", "hi")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "only the bidirectional stream-json mode") {
		t.Fatalf("err %v, out %s", err, out)
	}
}
