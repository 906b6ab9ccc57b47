package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
)

// Codex reads Codex's sessions: ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl
// (Codex 0.169). Each line is {timestamp, type, payload}:
//
//	session_meta {id, cwd, timestamp, ...}     the thread: id (the session id `codex
//	                                           resume` takes) and folder
//	turn_context {model, cwd, ...}             per turn: the model
//	event_msg task_started {turn_attribution}  a turn starts
//	event_msg item_completed {item}            a finished thread item: UserMessage,
//	                                           AgentMessage, Reasoning, CommandExecution,
//	                                           FileChange, ... (the app-server's items,
//	                                           PascalCase, snake_case fields)
//	event_msg token_count {info.last_token_usage}
//	event_msg task_complete                    a turn ends
//	response_item, world_state, ...            the model-side record: kept raw only
//
// Each record Jean-Claude reads is rewritten as the `codex app-server`
// notification carrying the same thing (thread/started, turn/started,
// item/completed with the item in the app-server's camelCase shape,
// thread/tokenUsage/updated, turn/completed) and fed to the live app-server
// normalizer, which the backend resumes the thread with; the messages'
// Raw are those frames, so re-normalization rebuilds them.
type Codex struct{}

// Format implements Source.
func (Codex) Format() string { return "codex" }

// Backend implements Source.
func (Codex) Backend() agent.BackendType { return agent.BackendCodex }

// RawFormat implements Source.
func (Codex) RawFormat() string { return codex.AppServerFormatName }

// Find implements Source: folder "" lists every session; a folder lists
// those that ran in it; a .jsonl file is that session.
func (c Codex) Find(home, folder string) ([]Session, error) {
	var files []string
	if strings.HasSuffix(folder, ".jsonl") {
		files, folder = []string{folder}, ""
	} else {
		root := filepath.Join(home, ".codex", "sessions")
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return filepath.SkipAll
				}
				return err
			}
			if !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("importer: codex: %w", err)
		}
	}
	var out []Session
	for _, f := range files {
		s, ok, err := c.scan(f)
		if err != nil {
			return nil, err
		}
		if ok && (folder == "" || filepath.Clean(s.Cwd) == filepath.Clean(folder)) {
			out = append(out, s)
		}
	}
	return out, nil
}

// codexRecord is one rollout line.
type codexRecord struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// codexPayload is the part of a payload the importer reads.
type codexPayload struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	Cwd      string          `json:"cwd"`
	Model    string          `json:"model"`
	Item     json.RawMessage `json:"item"`
	TurnID   string          `json:"turn_id"`
	ThreadID string          `json:"thread_id"`
	Attr     struct {
		TurnID string `json:"turn_id"`
	} `json:"turn_attribution"`
	Info      json.RawMessage `json:"info"`
	LastAgent string          `json:"last_agent_message"`
}

// codexItem is a rollout item with the fields the conversion reads.
type codexItem struct {
	Type    string `json:"type"`
	ID      string `json:"id"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	SummaryText []string        `json:"summary_text"`
	RawContent  []string        `json:"raw_content"`
	Command     json.RawMessage `json:"command"`
	Cwd         string          `json:"cwd"`
	Status      string          `json:"status"`
	Output      *string         `json:"aggregated_output"`
	ExitCode    *int            `json:"exit_code"`
	Changes     map[string]struct {
		Type        string `json:"type"`
		Content     string `json:"content"`
		UnifiedDiff string `json:"unified_diff"`
	} `json:"changes"`
}

func (c Codex) scan(path string) (s Session, ok bool, err error) {
	s = Session{Format: c.Format(), Path: path}
	s.Size, err = readLines(path, func(line []byte) {
		var r codexRecord
		var p codexPayload
		if json.Unmarshal(line, &r) != nil || json.Unmarshal(r.Payload, &p) != nil {
			return
		}
		if t := millis(r.Timestamp); t != 0 {
			if s.StartedAt == 0 {
				s.StartedAt = t
			}
			s.UpdatedAt = t
		}
		switch {
		case r.Type == "session_meta" && s.ID == "":
			ok, s.ID, s.Cwd = true, p.ID, p.Cwd
		case r.Type == "turn_context" && s.Model == "":
			s.Model = p.Model
		case r.Type == "event_msg" && p.Type == "item_completed" && s.FirstPrompt == "":
			var it codexItem
			if json.Unmarshal(p.Item, &it) == nil && it.Type == "UserMessage" {
				s.FirstPrompt = strings.TrimSpace(it.text())
			}
		}
	})
	return s, ok && s.ID != "", err
}

func (it *codexItem) text() string {
	var b strings.Builder
	for _, c := range it.Content {
		if strings.EqualFold(c.Type, "text") {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// Load implements Source.
func (c Codex) Load(s Session) (Loaded, error) {
	l := Loaded{}
	scanned, ok, err := c.scan(s.Path)
	if err != nil {
		return l, err
	}
	if !ok {
		return l, fmt.Errorf("importer: %s holds no codex session", s.Path)
	}
	l.Session = scanned
	n := codex.NewAppServerNormalizer()
	col := newCollector()
	turn := ""
	_, err = readLines(s.Path, func(line []byte) {
		l.Records = append(l.Records, bytes.Clone(line))
		var r codexRecord
		var p codexPayload
		if json.Unmarshal(line, &r) != nil || json.Unmarshal(r.Payload, &p) != nil {
			return
		}
		for _, f := range codexFrames(scanned.ID, &r, &p, &turn) {
			col.add(n.Feed(f))
		}
	})
	if err != nil {
		return l, err
	}
	col.add(n.Flush())
	l.Messages = col.messages()
	return l, nil
}

// codexFrames rewrites one rollout record as the app-server frames that
// carry the same thing (none for bookkeeping records).
func codexFrames(thread string, r *codexRecord, p *codexPayload, turn *string) [][]byte {
	note := func(method string, params any) [][]byte {
		b, _ := json.Marshal(map[string]any{"method": method, "params": params})
		return [][]byte{b}
	}
	if r.Type == "session_meta" {
		return note("thread/started", map[string]any{"thread": map[string]any{"id": p.ID}})
	}
	if r.Type != "event_msg" {
		return nil
	}
	switch p.Type {
	case "task_started":
		*turn = p.Attr.TurnID
		return note("turn/started", map[string]any{"threadId": thread, "turn": map[string]any{"id": *turn}})
	case "item_completed":
		var it codexItem
		if json.Unmarshal(p.Item, &it) != nil || it.ID == "" {
			return nil
		}
		return note("item/completed", map[string]any{"threadId": thread, "turnId": *turn, "item": appServerItem(&it, p.Item)})
	case "token_count":
		var info struct {
			Last struct {
				Input     int64 `json:"input_tokens"`
				Cached    int64 `json:"cached_input_tokens"`
				Output    int64 `json:"output_tokens"`
				Reasoning int64 `json:"reasoning_output_tokens"`
				Total     int64 `json:"total_tokens"`
			} `json:"last_token_usage"`
			Window int64 `json:"model_context_window"`
		}
		if len(p.Info) == 0 || json.Unmarshal(p.Info, &info) != nil {
			return nil
		}
		l := info.Last
		return note("thread/tokenUsage/updated", map[string]any{"threadId": thread, "turnId": *turn, "tokenUsage": map[string]any{
			"last": map[string]any{"inputTokens": l.Input, "cachedInputTokens": l.Cached, "outputTokens": l.Output,
				"reasoningOutputTokens": l.Reasoning, "totalTokens": l.Total},
			"modelContextWindow": info.Window}})
	case "task_complete", "turn_aborted":
		status := map[string]string{"task_complete": "completed", "turn_aborted": "interrupted"}[p.Type]
		return note("turn/completed", map[string]any{"threadId": thread, "turn": map[string]any{"id": *turn, "status": status}})
	}
	return nil
}

// appServerItem is a rollout item in the app-server's shape.
func appServerItem(it *codexItem, raw json.RawMessage) any {
	out := map[string]any{"id": it.ID, "type": lowerFirst(it.Type)}
	switch it.Type {
	case "UserMessage":
		out["content"] = []map[string]string{{"type": "text", "text": it.text()}}
	case "AgentMessage", "Plan":
		out["text"] = it.text()
	case "Reasoning":
		out["summary"], out["content"] = it.SummaryText, it.RawContent
	case "CommandExecution":
		out["command"], out["cwd"] = commandLine(it.Command), strings.TrimPrefix(it.Cwd, "file://")
		out["status"], out["aggregatedOutput"] = it.Status, it.Output
		if it.ExitCode != nil {
			out["exitCode"] = *it.ExitCode
		}
	case "FileChange":
		var changes []map[string]any
		for _, path := range sortedKeys(it.Changes) {
			ch := it.Changes[path]
			changes = append(changes, map[string]any{"path": path, "kind": map[string]string{"type": ch.Type}, "diff": ch.Content + ch.UnifiedDiff})
		}
		out["changes"], out["status"] = changes, it.Status
	default:
		var m map[string]any
		if json.Unmarshal(raw, &m) == nil {
			m["type"] = out["type"]
			return m
		}
	}
	return out
}

// commandLine is the command a CommandExecution ran: the script of a
// `shell -lc SCRIPT` argv, else the argv joined.
func commandLine(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	_ = json.Unmarshal(raw, &argv)
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}

func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[size:]
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
