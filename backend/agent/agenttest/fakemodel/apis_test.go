package fakemodel

import (
	"encoding/json"
	"strings"
	"testing"
)

// A user message carrying a tool result and a new prompt (Claude Code after
// a denied tool) answers the new prompt, not the script's next turn.
func TestAnthropicResultAndNewText(t *testing.T) {
	s := start(t)
	user := map[string]any{"role": "user", "content": "[scenario:main] go"}
	blocks, _ := anthropicTurn(t, s, []any{user}, true)
	id0 := blocks[2].ID
	conv := []any{user,
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id0, "name": "Write", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": id0, "content": "denied", "is_error": true},
			map[string]any{"type": "text", "text": "Anything else?"}}},
	}
	blocks, _ = anthropicTurn(t, s, conv, true)
	if len(blocks) != 1 || blocks[0].Text != "You said: Anything else?" {
		t.Fatalf("want the new text answered, got %+v", blocks)
	}
}

// geminiTurn posts contents to streamGenerateContent and rebuilds the parts.
func geminiTurn(t *testing.T, s *Server, contents []any, body map[string]any) (text string, calls []map[string]any, finish string) {
	t.Helper()
	if body == nil {
		body = map[string]any{"tools": []any{map[string]any{"functionDeclarations": []any{
			map[string]any{"name": "write_file"}, map[string]any{"name": "run_shell_command"}}}}}
	}
	body["contents"] = contents
	_, data, _ := sseData(t, post(t, s.URL()+"/v1beta/models/gemini-x:streamGenerateContent?alt=sse", body))
	for _, d := range data {
		var c struct {
			Candidates []struct {
				Content struct {
					Parts []map[string]any `json:"parts"`
				} `json:"content"`
				FinishReason string `json:"finishReason"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(d, &c); err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Candidates[0].Content.Parts {
			if fc, ok := p["functionCall"].(map[string]any); ok {
				calls = append(calls, fc)
			} else if p["thought"] == nil {
				text += p["text"].(string)
			}
		}
		if f := c.Candidates[0].FinishReason; f != "" {
			finish = f
		}
	}
	return text, calls, finish
}

func TestGeminiScript(t *testing.T) {
	s := start(t)
	user := map[string]any{"role": "user", "parts": []any{map[string]any{"text": "[scenario:main] go"}}}
	text, calls, finish := geminiTurn(t, s, []any{user}, nil)
	if text != "Writing." || len(calls) != 1 || calls[0]["name"] != "write_file" || finish != "STOP" {
		t.Fatalf("turn 0: %q %v %q", text, calls, finish)
	}
	model := map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": calls[0]}}}
	resp := map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{
		"id": calls[0]["id"], "name": "write_file", "response": map[string]any{"output": "ok"}}}}}
	if text, calls, _ = geminiTurn(t, s, []any{user, model, resp}, nil); len(calls) != 1 || calls[0]["name"] != "run_shell_command" {
		t.Fatalf("turn 1: %q %v", text, calls)
	}
	// Without ids, the model's calls since the prompt are counted.
	noID := map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "x"}}}}
	anon := map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "x"}}}}
	if text, _, _ = geminiTurn(t, s, []any{user, noID, anon, noID, anon}, nil); text != "Done." {
		t.Errorf("turn 2 by count: %q", text)
	}
	// A stopped prompt merged with the next one: the last tag wins.
	merged := map[string]any{"role": "user", "parts": []any{map[string]any{"text": "[scenario:slow] count"}, map[string]any{"text": "[scenario:main] go"}}}
	if text, _, _ = geminiTurn(t, s, []any{merged}, nil); text != "Writing." {
		t.Errorf("merged prompts: %.100q", text)
	}
	// A JSON-schema side request gets a value of the schema.
	side := map[string]any{"generationConfig": map[string]any{"responseJsonSchema": map[string]any{"type": "object",
		"properties": map[string]any{"next_speaker": map[string]any{"type": "string", "enum": []any{"model", "user"}}}}}}
	if text, _, _ = geminiTurn(t, s, []any{user}, side); text != `{"next_speaker":"user"}` {
		t.Errorf("side: %q", text)
	}
	var got []string
	for _, r := range s.Requests() {
		got = append(got, r.API+":"+r.Scenario+":"+string(rune('0'+r.Turn)))
	}
	if strings.Join(got, " ") != "gemini:main:0 gemini:main:1 gemini:main:2 gemini:main:0 gemini::0" {
		t.Errorf("recorded %v", got)
	}
}

// responsesTurn posts input items to /v1/responses and rebuilds the output.
func responsesTurn(t *testing.T, s *Server, input []any) (text string, items []map[string]any, events []string) {
	t.Helper()
	body := map[string]any{"model": "gpt-x", "stream": true, "input": input, "tools": []any{
		map[string]any{"type": "function", "name": "exec_command"},
		map[string]any{"type": "custom", "name": "apply_patch"}}}
	events, data, _ := sseData(t, post(t, s.URL()+"/v1/responses", body))
	for i, d := range data {
		var e struct {
			Delta string         `json:"delta"`
			Item  map[string]any `json:"item"`
		}
		_ = json.Unmarshal(d, &e)
		switch events[i] {
		case "response.output_text.delta":
			text += e.Delta
		case "response.output_item.done":
			items = append(items, e.Item)
		}
	}
	return text, items, events
}

func TestResponsesScript(t *testing.T) {
	s := start(t)
	env := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text",
		"text": "<environment_context>\n  <cwd>/work/p</cwd>\n</environment_context>"}}}
	user := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "[scenario:main] go"}}}
	text, items, events := responsesTurn(t, s, []any{env, user})
	if events[0] != "response.created" || events[len(events)-1] != "response.completed" {
		t.Fatalf("events %v", events)
	}
	last := items[len(items)-1]
	if text != "Writing." || last["type"] != "custom_tool_call" || last["name"] != "apply_patch" ||
		last["input"] != "*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n" {
		t.Fatalf("turn 0: %q %v", text, items)
	}
	out := map[string]any{"type": "custom_tool_call_output", "call_id": last["call_id"], "output": "ok"}
	text, items, _ = responsesTurn(t, s, []any{env, user, last, out})
	call := items[len(items)-1]
	if text != "Running." || call["type"] != "function_call" || call["name"] != "exec_command" ||
		call["arguments"] != `{"cmd":"ls","workdir":"/work/p"}` {
		t.Fatalf("turn 1: %q %v", text, items)
	}
	out2 := map[string]any{"type": "function_call_output", "call_id": call["call_id"], "output": "ok"}
	if text, _, _ = responsesTurn(t, s, []any{env, user, last, out, call, out2}); text != "Done." {
		t.Errorf("turn 2: %q", text)
	}
	// A new prompt after a result answers the prompt.
	next := map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "Anything else?"}}}
	if text, _, _ = responsesTurn(t, s, []any{env, user, last, out, next}); text != "You said: Anything else?" {
		t.Errorf("new prompt: %.200q", text)
	}
}

// claude-code-acp offers mcp__acp__Write instead of Write.
func TestAnthropicACPTools(t *testing.T) {
	s := start(t)
	req := map[string]any{"model": "claude-x", "stream": true, "messages": []any{map[string]any{"role": "user", "content": "[scenario:main] go"}},
		"tools": []any{map[string]any{"name": "mcp__acp__Write"}, map[string]any{"name": "Bash"}}}
	_, data, _ := sseData(t, post(t, s.URL()+"/v1/messages", req))
	found := false
	for _, d := range data {
		if strings.Contains(string(d), `"name":"mcp__acp__Write"`) {
			found = true
		}
	}
	if !found {
		t.Errorf("no mcp__acp__Write call streamed")
	}
}
