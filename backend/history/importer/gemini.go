package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/gemini"
)

// Gemini reads Gemini CLI's saved chats: ~/.gemini/tmp/<project>/chats/session-*.jsonl
// (0.61: <project> is a slug of the folder, whose .project_root file holds
// the folder's path; older versions name it sha256(folder) and save one
// session-*.json document). A .jsonl file is a log of records:
//
//	{sessionId, projectHash, startTime, lastUpdated, kind}   the header (again at each resume)
//	{"$set": {...}}                                          an update of the header's fields
//	{id, timestamp, type, content, ...}                      a message; the same id again
//	                                                         replaces it (a gemini message gets
//	                                                         its toolCalls, with their results)
//
// Messages: type user (content: text parts, or functionResponse parts that
// only echo tool results), gemini (content text, thoughts, toolCalls [{id,
// name, args, result [{functionResponse {response {output | error}}}],
// status}], model, tokens), info / error / warning. A .json file is
// {sessionId, projectHash, startTime, lastUpdated, messages: [...]}.
//
// The chat is rewritten as the `gemini -p --output-format stream-json`
// lines of the same turns (init, message user, message assistant,
// tool_use, tool_result, result) and fed to the live Gemini normalizer,
// which `--resume <session id>` continues; the messages' Raw are those
// lines.
type Gemini struct{}

// Format implements Source.
func (Gemini) Format() string { return "gemini" }

// Backend implements Source.
func (Gemini) Backend() agent.BackendType { return agent.BackendGemini }

// RawFormat implements Source.
func (Gemini) RawFormat() string { return gemini.FormatName }

// geminiMessage is one saved chat message.
type geminiMessage struct {
	ID        string          `json:"id"`
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	Model     string          `json:"model"`
	Thoughts  []struct {
		Subject     string `json:"subject"`
		Description string `json:"description"`
	} `json:"thoughts"`
	ToolCalls []struct {
		ID     string          `json:"id"`
		Name   string          `json:"name"`
		Args   json.RawMessage `json:"args"`
		Status string          `json:"status"`
		Result []struct {
			FunctionResponse struct {
				Response struct {
					Output string          `json:"output"`
					Error  json.RawMessage `json:"error"`
				} `json:"response"`
			} `json:"functionResponse"`
		} `json:"result"`
		Timestamp string `json:"timestamp"`
	} `json:"toolCalls"`
}

// geminiChat is a saved chat read in full.
type geminiChat struct {
	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	StartTime   string          `json:"startTime"`
	LastUpdated string          `json:"lastUpdated"`
	Messages    []geminiMessage `json:"messages"`
	records     [][]byte
	size        int64
}

// text is a message's typed text: a string content or its text parts;
// "" for tool-result echoes.
func (m *geminiMessage) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func readGeminiChat(path string) (*geminiChat, error) {
	c := &geminiChat{}
	if strings.HasSuffix(path, ".json") {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("importer: %w", err)
		}
		if err := json.Unmarshal(b, c); err != nil {
			return nil, fmt.Errorf("importer: %s: %w", path, err)
		}
		c.records, c.size = [][]byte{b}, int64(len(b))
		return c, nil
	}
	at := map[string]int{}
	size, err := readLines(path, func(line []byte) {
		c.records = append(c.records, bytes.Clone(line))
		var m geminiMessage
		if json.Unmarshal(line, &m) != nil {
			return
		}
		if m.ID == "" || m.Type == "" {
			var h geminiChat
			if json.Unmarshal(line, &h) == nil && h.SessionID != "" {
				c.SessionID, c.ProjectHash = h.SessionID, h.ProjectHash
				if c.StartTime == "" {
					c.StartTime = h.StartTime
				}
			}
			return
		}
		if i, ok := at[m.ID]; ok {
			c.Messages[i] = m
			return
		}
		at[m.ID] = len(c.Messages)
		c.Messages = append(c.Messages, m)
	})
	c.size = size
	return c, err
}

// Find implements Source: folder "" lists every saved chat; a folder lists
// those of that folder; a session-*.json(l) file is that chat.
func (g Gemini) Find(home, folder string) ([]Session, error) {
	var files []string
	if strings.HasSuffix(folder, ".jsonl") || strings.HasSuffix(folder, ".json") {
		files, folder = []string{folder}, ""
	} else {
		for _, ext := range []string{"jsonl", "json"} {
			m, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats", "session-*."+ext))
			if err != nil {
				return nil, fmt.Errorf("importer: gemini: %w", err)
			}
			files = append(files, m...)
		}
	}
	var out []Session
	for _, f := range files {
		s, hash, ok, err := g.scan(f)
		if err != nil {
			return nil, err
		}
		if s.Cwd == "" && folder != "" && hash == geminiProjectHash(folder) {
			s.Cwd = folder
		}
		if ok && (folder == "" || filepath.Clean(s.Cwd) == filepath.Clean(folder)) {
			out = append(out, s)
		}
	}
	return out, nil
}

// geminiProjectHash is how a chat names its folder: sha256 of the path.
func geminiProjectHash(folder string) string {
	h := sha256.Sum256([]byte(folder))
	return hex.EncodeToString(h[:])
}

// scan reads a chat's summary. The folder is in the .project_root file next
// to chats/ (0.61); older versions only have the project hash, returned for
// Find to match against the folder asked for.
func (g Gemini) scan(path string) (s Session, hash string, ok bool, err error) {
	c, err := readGeminiChat(path)
	if err != nil || c.SessionID == "" {
		return s, "", false, err
	}
	s = Session{Format: g.Format(), ID: c.SessionID, Path: path, Size: c.size, StartedAt: millis(c.StartTime)}
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(path)), ".project_root")); err == nil {
		s.Cwd = strings.TrimSpace(string(b))
	}
	for _, m := range c.Messages {
		if t := millis(m.Timestamp); t != 0 {
			s.UpdatedAt = max(s.UpdatedAt, t)
		}
		if m.Type == "user" && s.FirstPrompt == "" {
			if t := strings.TrimSpace(m.text()); t != "" && !strings.HasPrefix(t, "<") {
				s.FirstPrompt, ok = t, true
			}
		}
		if m.Type == "gemini" && s.Model == "" {
			s.Model = m.Model
		}
	}
	return s, c.ProjectHash, ok, nil
}

// Load implements Source.
func (g Gemini) Load(s Session) (Loaded, error) {
	l := Loaded{}
	scanned, _, ok, err := g.scan(s.Path)
	if err != nil {
		return l, err
	}
	if !ok {
		return l, fmt.Errorf("importer: %s holds no gemini chat", s.Path)
	}
	if scanned.Cwd == "" {
		scanned.Cwd = s.Cwd
	}
	c, err := readGeminiChat(s.Path)
	if err != nil {
		return l, err
	}
	l.Session, l.Records = scanned, c.records
	n := gemini.NewNormalizer()
	col := newCollector()
	for _, f := range geminiLines(c) {
		col.add(n.Feed(f))
	}
	col.add(n.Flush())
	l.Messages = col.messages()
	return l, nil
}

// geminiLines rewrites a chat as the stream-json lines of its turns.
func geminiLines(c *geminiChat) [][]byte {
	var out [][]byte
	line := func(v map[string]any) {
		b, _ := json.Marshal(v)
		out = append(out, b)
	}
	model := ""
	for _, m := range c.Messages {
		if m.Type == "gemini" && model == "" {
			model = m.Model
		}
	}
	line(map[string]any{"type": "init", "timestamp": c.StartTime, "session_id": c.SessionID, "model": model})
	last := ""
	end := func() {
		if last != "" {
			line(map[string]any{"type": "result", "timestamp": last, "status": "success"})
			last = ""
		}
	}
	for _, m := range c.Messages {
		switch m.Type {
		case "user":
			t := m.text()
			if strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "<session_context>") {
				continue // a tool result's echo, the context preamble
			}
			end()
			line(map[string]any{"type": "message", "timestamp": m.Timestamp, "role": "user", "content": t})
		case "gemini":
			if t := m.text(); t != "" {
				line(map[string]any{"type": "message", "timestamp": m.Timestamp, "role": "assistant", "content": t, "delta": true})
			}
			for _, tc := range m.ToolCalls {
				line(map[string]any{"type": "tool_use", "timestamp": m.Timestamp, "tool_name": tc.Name, "tool_id": tc.ID, "parameters": tc.Args})
				res := map[string]any{"type": "tool_result", "timestamp": cmpOr(tc.Timestamp, m.Timestamp), "tool_id": tc.ID, "status": cmpOr(tc.Status, "success")}
				for _, r := range tc.Result {
					if e := r.FunctionResponse.Response.Error; len(e) > 0 {
						res["status"], res["error"] = "error", map[string]any{"message": string(e)}
					} else {
						res["output"] = r.FunctionResponse.Response.Output
					}
				}
				line(res)
			}
		case "error":
			line(map[string]any{"type": "error", "timestamp": m.Timestamp, "severity": "error", "message": m.text()})
		default:
			continue // info, warning: notices of the CLI's own UI
		}
		last = m.Timestamp
	}
	end()
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
