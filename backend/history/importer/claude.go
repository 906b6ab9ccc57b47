package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
)

// Claude reads Claude Code's sessions: ~/.claude/projects/<folder>/<id>.jsonl,
// where <folder> is the working directory with every character but ASCII
// letters and digits replaced by '-'. Each line is one record:
//
//	type user | assistant     a conversation message, the same shape as the
//	                          stream-json lines (message.content blocks, one
//	                          block per assistant line sharing message.id),
//	                          plus cwd, sessionId, timestamp, uuid,
//	                          parentUuid, isSidechain, isMeta
//	type summary, file-history-snapshot, queue-operation, system, ...
//	                          bookkeeping: kept raw, not messages
//
// The user and assistant records of the main chain (isSidechain false) go
// through the live Claude Code normalizer unchanged, so an imported session
// normalizes (and re-normalizes) exactly like a live one.
type Claude struct{}

// Format implements Source.
func (Claude) Format() string { return "claude-code" }

// Backend implements Source.
func (Claude) Backend() agent.BackendType { return agent.BackendClaudeCode }

// RawFormat implements Source.
func (Claude) RawFormat() string { return claude.FormatName }

// ClaudeFolder is the folder name Claude Code keeps a working directory's
// sessions under.
func ClaudeFolder(cwd string) string {
	b := []byte(cwd)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '-'
		}
	}
	return string(b)
}

// Find implements Source: folder "" lists every project's sessions; a
// folder lists those that ran in it; a .jsonl file is that session.
func (c Claude) Find(home, folder string) ([]Session, error) {
	var files []string
	if strings.HasSuffix(folder, ".jsonl") {
		files = []string{folder}
		folder = ""
	} else {
		pattern := filepath.Join(home, ".claude", "projects", "*", "*.jsonl")
		if folder != "" {
			pattern = filepath.Join(home, ".claude", "projects", ClaudeFolder(folder), "*.jsonl")
		}
		var err error
		if files, err = filepath.Glob(pattern); err != nil {
			return nil, fmt.Errorf("importer: claude-code: %w", err)
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

// claudeRecord is the part of a record the importer reads.
type claudeRecord struct {
	Type        string          `json:"type"`
	SessionID   string          `json:"sessionId"`
	Cwd         string          `json:"cwd"`
	Timestamp   string          `json:"timestamp"`
	IsSidechain bool            `json:"isSidechain"`
	IsMeta      bool            `json:"isMeta"`
	Message     json.RawMessage `json:"message"`
}

// promptText is the text of a user message that a person typed: a string
// content or its text blocks; "" for tool results and command echoes.
func promptText(msg json.RawMessage) string {
	var m struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m.Content, &s) != nil {
		var blocks []struct{ Type, Text string }
		if json.Unmarshal(m.Content, &blocks) != nil {
			return ""
		}
		for _, b := range blocks {
			if b.Type == "text" {
				s += b.Text
			}
		}
	}
	if strings.HasPrefix(s, "<") || strings.HasPrefix(s, "Caveat:") {
		return ""
	}
	return strings.TrimSpace(s)
}

func readLines(path string, each func(line []byte)) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("importer: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("importer: %w", err)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			each(line)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("importer: read %s: %w", path, err)
	}
	return st.Size(), nil
}

func millis(ts string) int64 {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return 0
	}
	return t.UnixMilli()
}

// scan reads a session file's summary; ok is false for a file without any
// conversation record.
func (c Claude) scan(path string) (s Session, ok bool, err error) {
	s = Session{Format: c.Format(), Path: path, ID: strings.TrimSuffix(filepath.Base(path), ".jsonl")}
	s.Size, err = readLines(path, func(line []byte) {
		var r claudeRecord
		if json.Unmarshal(line, &r) != nil || (r.Type != "user" && r.Type != "assistant") || len(r.Message) == 0 {
			return // (a Gemini CLI chat has user records too, without message)
		}
		ok = true
		if s.Cwd == "" && r.Cwd != "" {
			s.Cwd = r.Cwd
		}
		if r.SessionID != "" {
			s.ID = r.SessionID
		}
		if t := millis(r.Timestamp); t != 0 {
			if s.StartedAt == 0 {
				s.StartedAt = t
			}
			s.UpdatedAt = t
		}
		if s.FirstPrompt == "" && r.Type == "user" && !r.IsMeta && !r.IsSidechain {
			s.FirstPrompt = promptText(r.Message)
		}
		if s.Model == "" && r.Type == "assistant" {
			var m struct{ Model string }
			if json.Unmarshal(r.Message, &m) == nil && m.Model != "<synthetic>" {
				s.Model = m.Model
			}
		}
	})
	return s, ok, err
}

// Load implements Source.
func (c Claude) Load(s Session) (Loaded, error) {
	l := Loaded{}
	n := claude.NewNormalizer()
	col := newCollector()
	scanned, ok, err := c.scan(s.Path)
	if err != nil {
		return l, err
	}
	if !ok {
		return l, fmt.Errorf("importer: %s holds no conversation", s.Path)
	}
	l.Session = scanned
	_, err = readLines(s.Path, func(line []byte) {
		l.Records = append(l.Records, bytes.Clone(line))
		var r claudeRecord
		if json.Unmarshal(line, &r) != nil || (r.Type != "user" && r.Type != "assistant") || r.IsSidechain {
			return
		}
		col.add(n.Feed(line))
	})
	if err != nil {
		return l, err
	}
	col.add(n.Flush())
	l.Messages = col.messages()
	return l, nil
}
