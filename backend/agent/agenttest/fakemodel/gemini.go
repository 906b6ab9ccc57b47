package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// geminiRequest is the part of a generateContent request the server reads.
type geminiRequest struct {
	Contents []struct {
		Role  string       `json:"role"`
		Parts []geminiPart `json:"parts"`
	} `json:"contents"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type geminiPart struct {
	Text         string `json:"text"`
	Thought      bool   `json:"thought"`
	FunctionCall *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"functionResponse"`
}

// geminiPosition finds the scenario and turn of a Gemini conversation:
// walking back, the first user content with real text (not only function
// responses) names the scenario; the turn is one past the last of our
// function-call ids answered after it, or, when the CLI dropped the ids,
// the number of model contents with function calls after it.
func geminiPosition(req *geminiRequest) position {
	turn, calls := -1, 0
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		var texts []string
		later := turn
		for _, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil && turn == -1:
				if n, ok := turnOf(p.FunctionResponse.ID); ok {
					turn = n + 1
				}
			case p.FunctionCall != nil && turn == -1:
				if n, ok := turnOf(p.FunctionCall.ID); ok {
					turn = n + 1
				}
			case p.Text != "" && !p.Thought && c.Role == "user" && realText(p.Text):
				texts = append(texts, p.Text)
			}
		}
		if len(texts) > 0 { // new user text wins over results in the same content
			p := userPosition(strings.Join(texts, "\n"))
			p.turn = calls
			if later >= 0 {
				p.turn = later
			}
			return p
		}
		if c.Role == "model" && hasCall(c.Parts) {
			calls++
		}
	}
	return position{scenario: "default", turn: max(turn, 0)}
}

func hasCall(parts []geminiPart) bool {
	for _, p := range parts {
		if p.FunctionCall != nil {
			return true
		}
	}
	return false
}

// realText reports whether a user text is the user's and not context the
// CLI adds (system reminders, XML-ish context blocks).
func realText(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, reminder) {
		return false
	}
	if tagRE.MatchString(s) {
		return true
	}
	return !strings.HasPrefix(s, "<") && !strings.HasPrefix(s, "[Request interrupted")
}

// gemini serves POST /v1beta/models/{model}:{action} (generateContent,
// streamGenerateContent, countTokens).
func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	model, action, _ := strings.Cut(r.PathValue("call"), ":")
	if action == "countTokens" {
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": 321})
		return
	}
	var raw json.RawMessage
	if !decode(w, r, &raw) {
		return
	}
	var req geminiRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": 400, "message": "fakemodel: " + err.Error(), "status": "INVALID_ARGUMENT"}})
		return
	}
	rec := Request{API: "gemini", Path: r.URL.Path, Model: model, Stream: action == "streamGenerateContent"}
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			rec.Tools = append(rec.Tools, f.Name)
		}
	}
	var parts []map[string]any
	var turn Turn
	gc := req.GenerationConfig
	schema := gc.ResponseJSONSchema
	if len(schema) == 0 {
		schema = gc.ResponseSchema
	}
	switch {
	case len(schema) > 0 || gc.ResponseMimeType == "application/json":
		// Side requests (routing, next-speaker checks): a JSON value of the schema.
		var sc any
		_ = json.Unmarshal(schema, &sc)
		js, _ := json.Marshal(fromSchema(sc, ""))
		parts = []map[string]any{{"text": string(js)}}
	case len(rec.Tools) == 0:
		turn = Turn{Text: "Fake side answer"}
	default:
		pos := geminiPosition(&req)
		rec.Scenario, rec.Turn = pos.scenario, pos.turn
		turn = s.pick(pos)
	}
	s.recordRaw(rec, raw)
	if parts == nil {
		parts = geminiParts(turn, rec.Turn, cwdOf(raw))
	}
	s.geminiAnswer(w, r, model, rec, turn, parts)
}

func (s *Server) geminiAnswer(w http.ResponseWriter, r *http.Request, model string, rec Request, turn Turn, parts []map[string]any) {
	usage := func(p, c int) map[string]any {
		return map[string]any{"promptTokenCount": p, "candidatesTokenCount": c, "totalTokenCount": p + c}
	}
	rid := fmt.Sprintf("fake-%06d", msgSeq.Add(1))
	chunk := func(ps []map[string]any, last bool) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": ps}, "index": 0}
		obj := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": rid, "usageMetadata": usage(900, 0)}
		if last {
			cand["finishReason"] = "STOP"
			obj["usageMetadata"] = usage(900+100*rec.Turn, 25)
		}
		return obj
	}
	if !rec.Stream {
		if turn.Slow > 0 {
			parts = append(parts, map[string]any{"text": "tick 0. "})
		}
		writeJSON(w, http.StatusOK, chunk(parts, true))
		return
	}
	e := newSSE(w, r, s.chunkDelay)
	var chunks [][]map[string]any
	for _, p := range parts {
		if t, ok := p["text"].(string); ok && p["thought"] == nil {
			for _, piece := range pieces(t, 16) {
				chunks = append(chunks, []map[string]any{{"text": piece}})
			}
			continue
		}
		chunks = append(chunks, []map[string]any{p})
	}
	for i, c := range chunks {
		last := i == len(chunks)-1 && turn.Slow <= 0
		if !e.send("", chunk(c, last)) {
			return
		}
	}
	if turn.Slow > 0 {
		if !slowTicks(e, turn, func(t string) bool { return e.send("", chunk([]map[string]any{{"text": t}}, false)) }) {
			return
		}
		e.send("", chunk([]map[string]any{{"text": "done."}}, true))
	}
}

// geminiParts maps a Turn onto Gemini content parts, with Gemini CLI's
// tool names (write_file, run_shell_command).
func geminiParts(t Turn, turn int, cwd string) []map[string]any {
	var out []map[string]any
	if t.Thinking != "" {
		out = append(out, map[string]any{"text": t.Thinking, "thought": true})
	}
	if t.Text != "" {
		out = append(out, map[string]any{"text": t.Text})
	}
	for n, c := range t.Tools {
		id := fmt.Sprintf("call_fake_%d_%d_%06d", turn, n, msgSeq.Add(1))
		switch {
		case c.Named != nil:
			out = append(out, map[string]any{"functionCall": map[string]any{"id": id, "name": c.Named.Name, "args": c.Named.Input}})
		case c.Write != nil:
			out = append(out, map[string]any{"functionCall": map[string]any{"id": id, "name": "write_file",
				"args": map[string]any{"file_path": resolve(c.Write.Path, cwd), "content": c.Write.Content}}})
		case c.Shell != nil:
			out = append(out, map[string]any{"functionCall": map[string]any{"id": id, "name": "run_shell_command",
				"args": map[string]any{"command": c.Shell.Command, "description": c.Shell.Description}}})
		}
	}
	return out
}

// fromSchema makes a value of a JSON schema: enums pick their first value
// ("user" for next_speaker, so the CLI does not keep talking), objects fill
// every property.
func fromSchema(schema any, key string) any {
	sc, ok := schema.(map[string]any)
	if !ok {
		return "ok"
	}
	typ, _ := sc["type"].(string)
	typ = strings.ToLower(typ)
	if en, ok := sc["enum"].([]any); ok && len(en) > 0 {
		for _, v := range en {
			if key == "next_speaker" && v == "user" {
				return v
			}
		}
		return en[0]
	}
	if props, ok := sc["properties"].(map[string]any); ok || typ == "object" {
		out := map[string]any{}
		for k, v := range props {
			out[k] = fromSchema(v, k)
		}
		return out
	}
	switch typ {
	case "array":
		return []any{}
	case "boolean":
		return false
	case "integer", "number":
		if m, ok := sc["minimum"]; ok {
			return m
		}
		return 10
	}
	switch key {
	case "next_speaker":
		return "user"
	case "model_choice":
		return "flash"
	}
	return "ok"
}
