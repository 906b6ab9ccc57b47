package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// chatRequest is the part of a chat-completions request the server reads.
type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// contentText is a chat message's text (a string or text parts).
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if p.Text != "" && !strings.HasPrefix(strings.TrimSpace(p.Text), reminder) {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

func chatPosition(req *chatRequest) position {
	turn := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		switch m.Role {
		case "tool":
			if turn == -1 {
				if n, ok := turnOf(m.ToolCallID); ok {
					turn = n + 1
				} else {
					turn = 1 << 20
				}
			}
		case "user":
			text := contentText(m.Content)
			if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), reminder) {
				continue
			}
			p := userPosition(text)
			if turn > 0 {
				p.turn = turn
			}
			return p
		}
	}
	return position{scenario: "default", turn: max(turn, 0)}
}

type chatCall struct{ id, name, args string }

// chatCalls maps a Turn's tool calls onto the tools the request offers
// (OpenCode: write, bash).
func chatCalls(t Turn, turn int, tools []string, cwd string) []chatCall {
	var out []chatCall
	for n, c := range t.Tools {
		id := fmt.Sprintf("call_fake_%d_%d_%06d", turn, n, msgSeq.Add(1))
		var name string
		var args map[string]any
		switch {
		case c.Named != nil:
			name, args = c.Named.Name, c.Named.Input
		case c.Write != nil && slices.Contains(tools, "write"):
			name, args = "write", map[string]any{"filePath": resolve(c.Write.Path, cwd), "content": c.Write.Content}
		case c.Write != nil:
			name, args = "bash", map[string]any{"command": fmt.Sprintf("printf %%s %q > %q", c.Write.Content, c.Write.Path),
				"description": "Write " + c.Write.Path}
		case c.Shell != nil:
			name, args = "bash", map[string]any{"command": c.Shell.Command, "description": c.Shell.Description}
		}
		js, _ := json.Marshal(args)
		out = append(out, chatCall{id: id, name: name, args: string(js)})
	}
	return out
}

func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if !decode(w, r, &raw) {
		return
	}
	var req chatRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "fakemodel: " + err.Error(), "type": "invalid_request_error"}})
		return
	}
	rec := Request{API: "openai", Path: r.URL.Path, Model: req.Model, Stream: req.Stream}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Function.Name)
	}
	var turn Turn
	if len(req.Tools) == 0 {
		turn = Turn{Text: "Fake side answer"}
	} else {
		pos := chatPosition(&req)
		rec.Scenario, rec.Turn = pos.scenario, pos.turn
		turn = s.pick(pos)
	}
	s.recordRaw(rec, raw)
	cwd := cwdOf(raw)
	calls := chatCalls(turn, rec.Turn, rec.Tools, cwd)
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	id := fmt.Sprintf("chatcmpl-fake%06d", msgSeq.Add(1))
	created := time.Now().Unix()
	usage := map[string]any{"prompt_tokens": 1200 + 100*rec.Turn, "completion_tokens": 40, "total_tokens": 1240 + 100*rec.Turn}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": turn.Text}
		if len(calls) > 0 {
			var tcs []any
			for _, c := range calls {
				tcs = append(tcs, map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
			}
			msg["tool_calls"] = tcs
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	e := newSSE(w, r, s.chunkDelay)
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	if !e.send("", chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return
	}
	if turn.Thinking != "" {
		for _, p := range pieces(turn.Thinking, 24) {
			if !e.send("", chunk(map[string]any{"reasoning_content": p}, nil)) {
				return
			}
		}
	}
	for _, p := range pieces(turn.Text, 16) {
		if !e.send("", chunk(map[string]any{"content": p}, nil)) {
			return
		}
	}
	if !slowTicks(e, turn, func(t string) bool { return e.send("", chunk(map[string]any{"content": t}, nil)) }) {
		return
	}
	for i, c := range calls {
		if !e.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.id, "type": "function",
			"function": map[string]any{"name": c.name, "arguments": ""}}}}, nil)) {
			return
		}
		for _, p := range pieces(c.args, 32) {
			if !e.send("", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil)) {
				return
			}
		}
	}
	if !e.send("", chunk(map[string]any{}, finish)) {
		return
	}
	e.send("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
		"choices": []any{}, "usage": usage})
	e.send("", "[DONE]")
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	var data []any
	for _, name := range []string{"fake-basic"} {
		data = append(data, map[string]any{"id": name, "object": "model", "created": 0, "owned_by": "fake"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}
