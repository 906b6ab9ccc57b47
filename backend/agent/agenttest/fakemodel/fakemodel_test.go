package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start(Options{Scripts: map[string]Script{
		"main": {
			{Thinking: "plan it", Text: "Writing.", Tools: []ToolCall{Write("hello.txt", "hi\n")}},
			{Text: "Running.", Tools: []ToolCall{Shell("ls", "List")}},
			{Text: "Done."},
		},
		"slow": {{Text: "Counting:", Slow: 20 * time.Millisecond}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sseData reads an SSE body: the data payloads in order, with their event names.
func sseData(t *testing.T, resp *http.Response) (events []string, data []json.RawMessage, done bool) {
	t.Helper()
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	ev := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			ev = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			d := strings.TrimPrefix(line, "data: ")
			if d == "[DONE]" {
				done = true
				continue
			}
			events = append(events, ev)
			data = append(data, json.RawMessage(d))
			ev = ""
		}
	}
	return events, data, done
}

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
	return resp
}

type block struct {
	Type, Text, Thinking, ID, Name string
	Input                          map[string]any
}

// anthropicTurn posts messages and rebuilds the streamed content blocks.
func anthropicTurn(t *testing.T, s *Server, messages []any, tools bool) ([]block, string) {
	t.Helper()
	req := map[string]any{"model": "claude-x", "stream": true, "messages": messages,
		"system": "Primary working directory: /work/p\n"}
	if tools {
		req["tools"] = []any{map[string]any{"name": "Write"}, map[string]any{"name": "Bash"}}
	}
	events, data, _ := sseData(t, post(t, s.URL()+"/v1/messages?beta=true", req))
	if events[0] != "message_start" || events[len(events)-1] != "message_stop" {
		t.Fatalf("events %v", events)
	}
	var blocks []block
	partial := map[int]string{}
	stop := ""
	for i, d := range data {
		var f struct {
			Index        int             `json:"index"`
			ContentBlock block           `json:"content_block"`
			Delta        json.RawMessage `json:"delta"`
		}
		_ = json.Unmarshal(d, &f)
		switch events[i] {
		case "content_block_start":
			blocks = append(blocks, f.ContentBlock)
		case "content_block_delta":
			var raw map[string]any
			_ = json.Unmarshal(f.Delta, &raw)
			switch raw["type"] {
			case "text_delta":
				blocks[f.Index].Text += raw["text"].(string)
			case "thinking_delta":
				blocks[f.Index].Thinking += raw["thinking"].(string)
			case "input_json_delta":
				partial[f.Index] += raw["partial_json"].(string)
			}
		case "message_delta":
			var md struct {
				Delta struct {
					StopReason string `json:"stop_reason"`
				} `json:"delta"`
			}
			_ = json.Unmarshal(d, &md)
			stop = md.Delta.StopReason
		}
	}
	for i, p := range partial {
		if err := json.Unmarshal([]byte(p), &blocks[i].Input); err != nil {
			t.Fatalf("tool input %q: %v", p, err)
		}
	}
	return blocks, stop
}

func TestAnthropicScript(t *testing.T) {
	s := start(t)
	user := map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "<system-reminder>ctx</system-reminder>"},
		map[string]any{"type": "text", "text": "[scenario:main] Create hello.txt"}}}
	blocks, stop := anthropicTurn(t, s, []any{user}, true)
	if len(blocks) != 3 || blocks[0].Thinking != "plan it" || blocks[1].Text != "Writing." || blocks[2].Name != "Write" || stop != "tool_use" {
		t.Fatalf("turn 0: %+v stop %s", blocks, stop)
	}
	if blocks[2].Input["file_path"] != "/work/p/hello.txt" || blocks[2].Input["content"] != "hi\n" {
		t.Errorf("Write input %v: want the path resolved against the system prompt's directory", blocks[2].Input)
	}
	id0 := blocks[2].ID
	conv := []any{user,
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id0, "name": "Write", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id0, "content": "ok"},
			map[string]any{"type": "text", "text": "<system-reminder>x</system-reminder>"}}},
	}
	blocks, _ = anthropicTurn(t, s, conv, true)
	if len(blocks) != 2 || blocks[1].Name != "Bash" || blocks[1].Input["command"] != "ls" {
		t.Fatalf("turn 1: %+v", blocks)
	}
	id1 := blocks[1].ID
	if id1 == id0 {
		t.Error("tool ids repeat")
	}
	conv = append(conv, map[string]any{"role": "assistant", "content": []any{}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id1, "content": "a b"}}})
	blocks, stop = anthropicTurn(t, s, conv, true)
	if len(blocks) != 1 || blocks[0].Text != "Done." || stop != "end_turn" {
		t.Fatalf("turn 2: %+v %s", blocks, stop)
	}
	// A follow-up without a tag echoes; a side request (no tools) never advances.
	conv = append(conv, map[string]any{"role": "user", "content": "thanks!"})
	if blocks, _ = anthropicTurn(t, s, conv, true); blocks[0].Text != "You said: thanks!" {
		t.Errorf("echo: %+v", blocks)
	}
	if blocks, _ = anthropicTurn(t, s, conv, false); blocks[0].Text != "Fake side answer" {
		t.Errorf("side: %+v", blocks)
	}
	var got []string
	for _, r := range s.Requests() {
		got = append(got, r.Scenario+":"+string(rune('0'+r.Turn)))
	}
	if strings.Join(got, " ") != "main:0 main:1 main:2 default:0 :0" {
		t.Errorf("recorded %v", got)
	}
}

func TestOpenAIChatScript(t *testing.T) {
	s := start(t)
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "write"}},
		map[string]any{"type": "function", "function": map[string]any{"name": "bash"}}}
	msgs := []any{map[string]any{"role": "system", "content": "Working directory: /w\n"},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "[scenario:main] go"}}}}
	turn := func() (text string, calls map[int]map[string]string, finish string, done bool) {
		_, data, done := sseData(t, post(t, s.OpenAIBaseURL()+"/chat/completions", map[string]any{"model": "fake-basic", "stream": true, "messages": msgs, "tools": tools}))
		calls = map[int]map[string]string{}
		for _, d := range data {
			var c struct {
				Choices []struct {
					Delta struct {
						Content   string `json:"content"`
						ToolCalls []struct {
							Index    int    `json:"index"`
							ID       string `json:"id"`
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
			}
			if err := json.Unmarshal(d, &c); err != nil {
				t.Fatal(err)
			}
			for _, ch := range c.Choices {
				text += ch.Delta.Content
				for _, tc := range ch.Delta.ToolCalls {
					if calls[tc.Index] == nil {
						calls[tc.Index] = map[string]string{}
					}
					if tc.ID != "" {
						calls[tc.Index]["id"], calls[tc.Index]["name"] = tc.ID, tc.Function.Name
					}
					calls[tc.Index]["args"] += tc.Function.Arguments
				}
				if ch.FinishReason != nil {
					finish = *ch.FinishReason
				}
			}
		}
		return
	}
	text, calls, finish, done := turn()
	if text != "Writing." || calls[0]["name"] != "write" || calls[0]["args"] != `{"content":"hi\n","filePath":"/w/hello.txt"}` || finish != "tool_calls" || !done {
		t.Fatalf("turn 0: %q %v %q done=%v", text, calls, finish, done)
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": calls[0]["id"]}}},
		map[string]any{"role": "tool", "tool_call_id": calls[0]["id"], "content": "ok"})
	text, calls, finish, _ = turn()
	if text != "Running." || calls[0]["name"] != "bash" || !strings.Contains(calls[0]["args"], `"command":"ls"`) {
		t.Fatalf("turn 1: %q %v %q", text, calls, finish)
	}
	msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": calls[0]["id"], "content": "x"})
	if text, calls, finish, _ = turn(); text != "Done." || len(calls) != 0 || finish != "stop" {
		t.Fatalf("turn 2: %q %v %q", text, calls, finish)
	}
}

func TestSlowTurnEndsWhenTheClientLeaves(t *testing.T) {
	s := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	b, _ := json.Marshal(map[string]any{"stream": true, "tools": []any{map[string]any{"name": "Bash"}},
		"messages": []any{map[string]any{"role": "user", "content": "[scenario:slow] count"}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/messages", bytes.NewReader(b))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	ticks := 0
	for sc.Scan() && ticks < 3 {
		if strings.Contains(sc.Text(), "tick ") {
			ticks++
		}
	}
	cancel()
	resp.Body.Close()
	// The server notices and the stream's handler returns: Close does not
	// wait for the 60 s default.
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("the slow stream kept the server busy after the client left")
	}
}

func TestBadBody(t *testing.T) {
	s := start(t)
	resp, err := http.Post(s.URL()+"/v1/messages", "application/json", strings.NewReader("{nope"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad JSON: %s", resp.Status)
	}
	resp, err = http.Get(s.URL() + "/v1/nothing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown route: %s", resp.Status)
	}
}
