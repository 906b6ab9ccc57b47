package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
)

// responsesRequest is the part of an OpenAI Responses API request (what
// Codex sends to POST /v1/responses) the server reads.
type responsesRequest struct {
	Model        string          `json:"model"`
	Stream       bool            `json:"stream"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Tools        []responsesTool `json:"tools"`
}

type responsesTool struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
}

var codexCwdRE = regexp.MustCompile(`<cwd>([^<]+)</cwd>`)

// responsesPosition finds the scenario and turn of a Responses
// conversation: walking back over the input items, the first output (or
// call) with one of our call ids selects the turn after it; the first user
// message with real text names the scenario (a new text wins over results
// that come before it).
func responsesPosition(items []responsesItem) position {
	turn := -1
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		switch it.Type {
		case "function_call_output", "custom_tool_call_output", "function_call", "custom_tool_call", "local_shell_call":
			if turn == -1 {
				if n, ok := turnOf(it.CallID); ok {
					turn = n + 1
				} else if strings.HasSuffix(it.Type, "_output") {
					turn = 1 << 20
				}
			}
		case "message", "":
			if it.Role != "user" {
				continue
			}
			text := contentText(it.Content)
			if !realText(text) {
				continue
			}
			p := userPosition(text)
			p.turn = max(turn, 0)
			return p
		}
	}
	return position{scenario: "default", turn: max(turn, 0)}
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	if !decode(w, r, &raw) {
		return
	}
	var req responsesRequest
	var items []responsesItem
	err := json.Unmarshal(raw, &req)
	if err == nil {
		var str string
		if json.Unmarshal(req.Input, &str) == nil {
			b, _ := json.Marshal(str)
			items = []responsesItem{{Type: "message", Role: "user", Content: b}}
		} else if len(req.Input) > 0 {
			err = json.Unmarshal(req.Input, &items)
		}
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": "fakemodel: " + err.Error(), "type": "invalid_request_error"}})
		return
	}
	rec := Request{API: "responses", Path: r.URL.Path, Model: req.Model, Stream: req.Stream}
	custom := map[string]bool{}
	for _, t := range req.Tools {
		if t.Name != "" {
			rec.Tools = append(rec.Tools, t.Name)
			custom[t.Name] = t.Type == "custom"
		}
	}
	var turn Turn
	if len(rec.Tools) == 0 {
		turn = Turn{Text: "Fake side answer"}
	} else {
		pos := responsesPosition(items)
		rec.Scenario, rec.Turn = pos.scenario, pos.turn
		turn = s.pick(pos)
	}
	s.recordRaw(rec, raw)
	cwd := cwdOf(raw)
	for _, it := range items {
		if m := codexCwdRE.FindStringSubmatch(contentText(it.Content)); m != nil {
			cwd = strings.TrimSpace(m[1])
		}
	}
	calls := responsesCalls(turn, rec.Turn, rec.Tools, custom, cwd)
	canSearch := slices.ContainsFunc(req.Tools, func(t responsesTool) bool { return t.Type == "tool_search" })
	if search := responsesSearch(calls, rec.Tools, canSearch, items); search != nil {
		// Codex defers MCP tools behind tool_search: search first (no
		// text), the same turn is played again once they are loaded.
		turn.Text, turn.Thinking, calls = "", "", search
	}
	s.responsesStream(w, r, req.Model, rec, turn, calls)
}

type responsesCall struct {
	id, name, input string
	custom          bool
	namespace       string // a namespaced function (Codex's MCP tools)
	search          bool   // a tool_search call (input: its arguments)
}

// mcpNameRE is an MCP tool as Claude Code names it: mcp__server__tool.
var mcpNameRE = regexp.MustCompile(`^mcp__(.+?)__(.+)$`)

// responsesNamespace maps a named call mcp__server__tool onto Codex's
// namespaced MCP tools (namespace mcp__server with "-" as "_", name
// tool); ok false when the name is not an MCP tool's.
func responsesNamespace(name string) (ns, tool string, ok bool) {
	m := mcpNameRE.FindStringSubmatch(name)
	if m == nil {
		return "", "", false
	}
	return "mcp__" + strings.ReplaceAll(m[1], "-", "_"), m[2], true
}

// responsesSearch is the tool_search call to make first when a call
// names an MCP tool whose namespace Codex has not listed yet (it defers
// MCP tools behind tool_search) and nothing was searched yet; nil
// otherwise. Its id is not one of ours, so the turn is played again.
func responsesSearch(calls []responsesCall, tools []string, canSearch bool, items []responsesItem) []responsesCall {
	if !canSearch {
		return nil
	}
	for _, it := range items {
		if it.Type == "tool_search_output" {
			return nil
		}
	}
	for _, c := range calls {
		if c.namespace != "" && !slices.Contains(tools, c.namespace) {
			js, _ := json.Marshal(map[string]any{"query": strings.ReplaceAll(c.namespace+" "+c.name, "_", " "), "limit": 8})
			return []responsesCall{{id: fmt.Sprintf("search_fake_%06d", msgSeq.Add(1)), input: string(js), search: true}}
		}
	}
	return nil
}

// responsesCalls maps a Turn's tool calls onto Codex's tools: apply_patch
// (freeform when the tool is "custom") for writes, exec_command (or
// shell_command, shell) for commands.
func responsesCalls(t Turn, turn int, tools []string, custom map[string]bool, cwd string) []responsesCall {
	var out []responsesCall
	for n, c := range t.Tools {
		id := fmt.Sprintf("call_fake_%d_%d_%06d", turn, n, msgSeq.Add(1))
		cmd := ""
		switch {
		case c.Named != nil:
			js, _ := json.Marshal(c.Named.Input)
			call := responsesCall{id: id, name: c.Named.Name, input: string(js)}
			if ns, tool, ok := responsesNamespace(c.Named.Name); ok && !slices.Contains(tools, c.Named.Name) {
				call.namespace, call.name = ns, tool
			}
			out = append(out, call)
			continue
		case c.Write != nil && slices.Contains(tools, "apply_patch"):
			path := c.Write.Path
			if cwd != "" && strings.HasPrefix(path, strings.TrimRight(cwd, "/")+"/") {
				path = strings.TrimPrefix(path, strings.TrimRight(cwd, "/")+"/")
			}
			var b strings.Builder
			b.WriteString("*** Begin Patch\n*** Add File: " + path + "\n")
			for _, l := range strings.Split(strings.TrimSuffix(c.Write.Content, "\n"), "\n") {
				b.WriteString("+" + l + "\n")
			}
			b.WriteString("*** End Patch\n")
			if custom["apply_patch"] {
				out = append(out, responsesCall{id: id, name: "apply_patch", input: b.String(), custom: true})
			} else {
				js, _ := json.Marshal(map[string]any{"input": b.String()})
				out = append(out, responsesCall{id: id, name: "apply_patch", input: string(js)})
			}
			continue
		case c.Write != nil:
			cmd = fmt.Sprintf("printf %%s %q > %q", c.Write.Content, c.Write.Path)
		case c.Shell != nil:
			cmd = c.Shell.Command
		}
		name, args := "exec_command", map[string]any{"cmd": cmd}
		switch {
		case slices.Contains(tools, "exec_command"):
		case slices.Contains(tools, "shell_command"):
			name, args = "shell_command", map[string]any{"command": cmd}
		default:
			name, args = "shell", map[string]any{"command": []string{"bash", "-lc", cmd}}
		}
		if cwd != "" {
			args["workdir"] = cwd
		}
		js, _ := json.Marshal(args)
		out = append(out, responsesCall{id: id, name: name, input: string(js)})
	}
	return out
}

// responsesStream writes the Responses API event stream of one answer.
func (s *Server) responsesStream(w http.ResponseWriter, r *http.Request, model string, rec Request, turn Turn, calls []responsesCall) {
	e := newSSE(w, r, s.chunkDelay)
	seq := 0
	ev := func(obj map[string]any) bool {
		obj["sequence_number"] = seq
		seq++
		return e.send(obj["type"].(string), obj)
	}
	respID := fmt.Sprintf("resp_fake_%06d", msgSeq.Add(1))
	base := func(status string, output []any) map[string]any {
		return map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(), "model": model,
			"status": status, "output": output}
	}
	if !ev(map[string]any{"type": "response.created", "response": base("in_progress", []any{})}) ||
		!ev(map[string]any{"type": "response.in_progress", "response": base("in_progress", []any{})}) {
		return
	}
	var output []any
	oi := 0
	item := func(added, done map[string]any, body func(id string) bool) bool {
		id := added["id"].(string)
		if !ev(map[string]any{"type": "response.output_item.added", "output_index": oi, "item": added}) || !body(id) {
			return false
		}
		output = append(output, done)
		ok := ev(map[string]any{"type": "response.output_item.done", "output_index": oi, "item": done})
		oi++
		return ok
	}
	if turn.Thinking != "" && !s.responsesReasoning(ev, item, turn.Thinking) {
		return
	}
	if turn.Text != "" || turn.Slow > 0 {
		if !s.responsesMessage(e, ev, item, turn) {
			return
		}
	}
	for _, c := range calls {
		if !responsesToolCall(ev, item, c) {
			return
		}
	}
	usage := map[string]any{"input_tokens": 1200 + 100*rec.Turn, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 40, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 1240 + 100*rec.Turn}
	done := base("completed", output)
	done["usage"] = usage
	ev(map[string]any{"type": "response.completed", "response": done})
}

type evFunc func(map[string]any) bool
type itemFunc func(added, done map[string]any, body func(id string) bool) bool

func (s *Server) responsesReasoning(ev evFunc, item itemFunc, text string) bool {
	id := fmt.Sprintf("rs_fake_%06d", msgSeq.Add(1))
	summary := []any{map[string]any{"type": "summary_text", "text": text}}
	return item(map[string]any{"id": id, "type": "reasoning", "summary": []any{}},
		map[string]any{"id": id, "type": "reasoning", "summary": summary}, func(id string) bool {
			at := map[string]any{"item_id": id, "output_index": 0, "summary_index": 0}
			with := func(m map[string]any) map[string]any {
				for k, v := range at {
					m[k] = v
				}
				return m
			}
			ok := ev(with(map[string]any{"type": "response.reasoning_summary_part.added", "part": map[string]any{"type": "summary_text", "text": ""}}))
			for _, p := range pieces(text, 24) {
				ok = ok && ev(with(map[string]any{"type": "response.reasoning_summary_text.delta", "delta": p}))
			}
			ok = ok && ev(with(map[string]any{"type": "response.reasoning_summary_text.done", "text": text}))
			return ok && ev(with(map[string]any{"type": "response.reasoning_summary_part.done", "part": summary[0]}))
		})
}

func (s *Server) responsesMessage(e *sse, ev evFunc, item itemFunc, turn Turn) bool {
	id := fmt.Sprintf("msg_fake_%06d", msgSeq.Add(1))
	full := turn.Text
	var streamed strings.Builder
	body := func(id string) bool {
		at := func(m map[string]any) map[string]any {
			m["item_id"], m["output_index"], m["content_index"] = id, 0, 0
			return m
		}
		if !ev(at(map[string]any{"type": "response.content_part.added", "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})) {
			return false
		}
		delta := func(t string) bool {
			streamed.WriteString(t)
			return ev(at(map[string]any{"type": "response.output_text.delta", "delta": t}))
		}
		for _, p := range pieces(turn.Text, 16) {
			if !delta(p) {
				return false
			}
		}
		if !slowTicks(e, turn, delta) {
			return false
		}
		full = streamed.String()
		return ev(at(map[string]any{"type": "response.output_text.done", "text": full})) &&
			ev(at(map[string]any{"type": "response.content_part.done", "part": map[string]any{"type": "output_text", "text": full, "annotations": []any{}}}))
	}
	added := map[string]any{"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
	done := map[string]any{"id": id, "type": "message", "status": "completed", "role": "assistant"}
	ok := item(added, done, func(id string) bool {
		if !body(id) {
			return false
		}
		done["content"] = []any{map[string]any{"type": "output_text", "text": full, "annotations": []any{}}}
		return true
	})
	return ok
}

func responsesToolCall(ev evFunc, item itemFunc, c responsesCall) bool {
	if c.search {
		id := fmt.Sprintf("tsc_fake_%06d", msgSeq.Add(1))
		args := json.RawMessage(c.input)
		added := map[string]any{"id": id, "type": "tool_search_call", "status": "in_progress", "call_id": c.id, "execution": "client", "arguments": args}
		done := map[string]any{"id": id, "type": "tool_search_call", "status": "completed", "call_id": c.id, "execution": "client", "arguments": args}
		return item(added, done, func(string) bool { return true })
	}
	typ, field, deltaEv, doneEv := "function_call", "arguments", "response.function_call_arguments.delta", "response.function_call_arguments.done"
	prefix := "fc"
	if c.custom {
		typ, field, deltaEv, doneEv = "custom_tool_call", "input", "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done"
		prefix = "ctc"
	}
	id := fmt.Sprintf("%s_fake_%06d", prefix, msgSeq.Add(1))
	added := map[string]any{"id": id, "type": typ, "status": "in_progress", "call_id": c.id, "name": c.name, field: ""}
	done := map[string]any{"id": id, "type": typ, "status": "completed", "call_id": c.id, "name": c.name, field: c.input}
	if c.namespace != "" {
		added["namespace"], done["namespace"] = c.namespace, c.namespace
	}
	return item(added, done, func(id string) bool {
		for _, p := range pieces(c.input, 32) {
			if !ev(map[string]any{"type": deltaEv, "item_id": id, "output_index": 0, "delta": p}) {
				return false
			}
		}
		return ev(map[string]any{"type": doneEv, "item_id": id, "output_index": 0, field: c.input})
	})
}
