package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
)

// anthropicRequest is the part of a Messages API request the server reads.
type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

type anthropicBlock struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	ToolUseID string `json:"tool_use_id"`
}

var msgSeq atomic.Int64

// anthropicPosition finds the scenario and turn of a Messages conversation.
func anthropicPosition(req *anthropicRequest) position {
	turn := -1
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		var blocks []anthropicBlock
		var str string
		if json.Unmarshal(m.Content, &str) == nil {
			blocks = []anthropicBlock{{Type: "text", Text: str}}
		} else if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		later, text := turn, ""
		for _, b := range blocks {
			switch b.Type {
			case "tool_result":
				if turn == -1 {
					if n, ok := turnOf(b.ToolUseID); ok {
						turn = n + 1
					} else {
						turn = 1 << 20 // someone else's tool: nothing more to do
					}
				}
			case "text":
				if realText(b.Text) {
					text = b.Text
				}
			}
		}
		if text == "" {
			continue
		}
		// A new user text wins over tool results in the same message
		// (Claude Code sends a denied tool's result with the next prompt).
		p := userPosition(text)
		if later > 0 {
			p.turn = later
		}
		return p
	}
	return position{scenario: "default", turn: max(turn, 0)}
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if !decode(w, r, &raw) {
		return
	}
	var req anthropicRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"type": "error", "error": map[string]any{
			"type": "invalid_request_error", "message": "fakemodel: " + err.Error()}})
		return
	}
	rec := Request{API: "anthropic", Path: r.URL.Path, Model: req.Model, Stream: req.Stream}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	var turn Turn
	if len(req.Tools) == 0 {
		turn = Turn{Text: "Fake side answer"}
	} else {
		pos := anthropicPosition(&req)
		rec.Scenario, rec.Turn = pos.scenario, pos.turn
		turn = s.pick(pos)
	}
	s.recordRaw(rec, raw)
	cwd := cwdOf(raw)
	blocks := anthropicBlocks(turn, rec.Turn, cwd, rec.Tools)
	stop := "end_turn"
	for _, b := range blocks {
		if b["type"] == "tool_use" {
			stop = "tool_use"
		}
	}
	id := fmt.Sprintf("msg_fake_%06d", msgSeq.Add(1))
	usage := map[string]any{"input_tokens": 1200 + 100*rec.Turn, "cache_creation_input_tokens": 0,
		"cache_read_input_tokens": 0, "output_tokens": 42}
	if !req.Stream {
		if turn.Slow > 0 {
			blocks = append(blocks, map[string]any{"type": "text", "text": "tick 0. "})
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "message", "role": "assistant",
			"model": req.Model, "content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	e := newSSE(w, r, s.chunkDelay)
	start := map[string]any{"input_tokens": usage["input_tokens"], "cache_creation_input_tokens": 0,
		"cache_read_input_tokens": 0, "output_tokens": 1}
	if !e.send("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": start}}) {
		return
	}
	e.send("ping", map[string]any{"type": "ping"})
	delta := func(i int, d map[string]any) bool {
		return e.send("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
	}
	for i, b := range blocks {
		var ok bool
		switch b["type"] {
		case "thinking":
			ok = e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}})
			for _, p := range pieces(b["thinking"].(string), 24) {
				ok = ok && delta(i, map[string]any{"type": "thinking_delta", "thinking": p})
			}
			ok = ok && delta(i, map[string]any{"type": "signature_delta", "signature": "ZmFrZS1zaWduYXR1cmU="})
		case "text":
			ok = e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, p := range pieces(b["text"].(string), 16) {
				ok = ok && delta(i, map[string]any{"type": "text_delta", "text": p})
			}
			if ok && turn.Slow > 0 && i == len(blocks)-1 {
				ok = slowTicks(e, turn, func(t string) bool { return delta(i, map[string]any{"type": "text_delta", "text": t}) })
			}
		case "tool_use":
			ok = e.send("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			js, _ := json.Marshal(b["input"])
			for _, p := range pieces(string(js), 32) {
				ok = ok && delta(i, map[string]any{"type": "input_json_delta", "partial_json": p})
			}
		}
		if !ok || !e.send("content_block_stop", map[string]any{"type": "content_block_stop", "index": i}) {
			return
		}
	}
	if !e.send("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": usage}) {
		return
	}
	e.send("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicBlocks maps a Turn onto Messages API content blocks, with the
// tools the request offers: Claude Code's Write and Bash, or
// claude-code-acp's mcp__acp__Write / mcp__acp__Bash (it replaces the
// built-in file tools when the client can write files).
func anthropicBlocks(t Turn, turn int, cwd string, tools []string) []map[string]any {
	var out []map[string]any
	if t.Thinking != "" {
		out = append(out, map[string]any{"type": "thinking", "thinking": t.Thinking, "signature": "ZmFrZS1zaWduYXR1cmU="})
	}
	if t.Text != "" || (t.Slow > 0 && len(t.Tools) == 0) {
		out = append(out, map[string]any{"type": "text", "text": t.Text})
	}
	pick := func(names ...string) string {
		for _, n := range names {
			if slices.Contains(tools, n) {
				return n
			}
		}
		return ""
	}
	bash := pick("Bash", "mcp__acp__Bash")
	if bash == "" {
		bash = "Bash"
	}
	for n, c := range t.Tools {
		id := fmt.Sprintf("toolu_fake_%d_%d_%06d", turn, n, msgSeq.Add(1))
		switch write := pick("Write", "mcp__acp__Write"); {
		case c.Named != nil:
			out = append(out, map[string]any{"type": "tool_use", "id": id, "name": c.Named.Name, "input": c.Named.Input})
		case c.Write != nil && (write != "" || len(tools) == 0):
			if write == "" {
				write = "Write"
			}
			out = append(out, map[string]any{"type": "tool_use", "id": id, "name": write,
				"input": map[string]any{"file_path": resolve(c.Write.Path, cwd), "content": c.Write.Content}})
		case c.Write != nil:
			out = append(out, map[string]any{"type": "tool_use", "id": id, "name": bash,
				"input": map[string]any{"command": fmt.Sprintf("printf %%s %q > %q", c.Write.Content, resolve(c.Write.Path, cwd)),
					"description": "Write " + c.Write.Path}})
		case c.Shell != nil:
			out = append(out, map[string]any{"type": "tool_use", "id": id, "name": bash,
				"input": map[string]any{"command": c.Shell.Command, "description": c.Shell.Description}})
		}
	}
	return out
}
