package importer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Session is one session an agent CLI saved on disk, as listed before
// importing it.
type Session struct {
	Format      string `json:"format"` // claude-code | opencode | codex | gemini
	ID          string `json:"id"`     // the CLI's session id
	Path        string `json:"path"`   // the file holding it
	Cwd         string `json:"cwd"`    // the folder it ran in
	StartedAt   int64  `json:"startedAt"`
	UpdatedAt   int64  `json:"updatedAt"`
	FirstPrompt string `json:"firstPrompt"`
	Size        int64  `json:"size"`
	Model       string `json:"model,omitempty"`
	// TaskID is the task that already holds the session ("" = not imported).
	TaskID string `json:"taskId,omitempty"`
}

// Message is one normalized message of a loaded session with the raw
// records that rebuild it (in the Source's RawFormat).
type Message struct {
	Message agent.Message
	Raw     []byte
}

// Loaded is a session read in full.
type Loaded struct {
	Session
	// Records are every record of the session, as stored on disk.
	Records [][]byte
	// Messages are the normalized transcript in order.
	Messages []Message
}

// Source is one CLI's on-disk session storage.
type Source interface {
	// Format names it (the --from value).
	Format() string
	// Backend is the agent backend that resumes its sessions.
	Backend() agent.BackendType
	// RawFormat is the registered raw format of Loaded messages' Raw (what
	// re-normalization feeds them to).
	RawFormat() string
	// Find lists the sessions under home that ran in folder ("" = all),
	// or the session files at path when path is a file or a folder of them.
	Find(home, folder string) ([]Session, error)
	// Load reads and normalizes one session.
	Load(s Session) (Loaded, error)
}

// Sources are the formats the importer reads.
func Sources() []Source { return []Source{Claude{}, OpenCode{}, Codex{}, Gemini{}} }

// SourceNamed returns the source with that format name.
func SourceNamed(name string) (Source, error) {
	var names []string
	for _, s := range Sources() {
		if s.Format() == name {
			return s, nil
		}
		names = append(names, s.Format())
	}
	return nil, fmt.Errorf("importer: unknown format %q (known: %s)", name, strings.Join(names, ", "))
}

// Find lists the sessions of every source (or only from, when set) for
// folder, newest first, each marked with the task already holding it.
func Find(ctx context.Context, db *store.DB, home, folder, from string) ([]Session, error) {
	srcs := Sources()
	if from != "" {
		s, err := SourceNamed(from)
		if err != nil {
			return nil, err
		}
		srcs = []Source{s}
	}
	var out []Session
	for _, src := range srcs {
		ss, err := src.Find(home, folder)
		if err != nil {
			return nil, err
		}
		for i := range ss {
			id, ok, err := store.ImportedTaskID(ctx, db.R, src.Format(), src.Backend(), ss[i].ID)
			if err != nil {
				return nil, err
			}
			if ok {
				ss[i].TaskID = id
			}
		}
		out = append(out, ss...)
	}
	slices.SortStableFunc(out, func(a, b Session) int { return int(b.StartedAt - a.StartedAt) })
	return out, nil
}

// ErrImported: the session is already held by a task.
var ErrImported = errors.New("session already imported")

// Import loads s and stores it as a completed task of project projectID
// (found or added for the session's folder when empty): every raw record
// in raw_frames, the normalized messages with the records that rebuild
// them, the CLI's session id on the task. A session already held by a task
// gives ErrImported with that task's id.
func Import(ctx context.Context, db *store.DB, src Source, s Session, projectID string) (string, error) {
	if id, ok, err := store.ImportedTaskID(ctx, db.R, src.Format(), src.Backend(), s.ID); err != nil {
		return "", err
	} else if ok {
		return id, fmt.Errorf("importer: %s session %s is task %s: %w", src.Format(), s.ID, id, ErrImported)
	}
	l, err := src.Load(s)
	if err != nil {
		return "", err
	}
	if projectID == "" {
		if projectID, err = projectFor(ctx, db, l.Cwd); err != nil {
			return "", err
		}
	}
	now := store.Now()
	var taskID string
	err = db.Tx(ctx, func(tx *sql.Tx) error {
		taskID, err = store.CreateImportedTask(ctx, tx, store.ImportedTask{
			ProjectID: projectID, Name: taskName(l.FirstPrompt), Prompt: l.FirstPrompt, Backend: src.Backend(),
			Model: l.Model, SessionID: l.ID, Format: src.Format(), Path: l.Path, Size: l.Size,
			CreatedAt: l.StartedAt, EndedAt: l.UpdatedAt,
		}, now)
		if err != nil {
			return err
		}
		return storeSession(ctx, tx, src, taskID, l, now)
	})
	if err != nil {
		return "", fmt.Errorf("importer: %s session %s: %w", src.Format(), s.ID, err)
	}
	return taskID, nil
}

func storeSession(ctx context.Context, tx *sql.Tx, src Source, taskID string, l Loaded, now int64) error {
	for i, r := range l.Records {
		err := store.InsertRawFrame(ctx, tx, store.RawFrame{TaskID: taskID, Seq: int64(i + 1),
			Format: src.Format() + "-session", Data: r, ReceivedAt: now})
		if err != nil {
			return err
		}
	}
	for _, m := range l.Messages {
		at := now
		if t, err := time.Parse(time.RFC3339Nano, m.Message.Timestamp); err == nil {
			at = t.UnixMilli()
		}
		_, err := store.UpsertMessage(ctx, tx, store.MessageWrite{TaskID: taskID, Message: m.Message, Raw: m.Raw,
			Format: src.RawFormat(), Version: agent.NormalizationVersion, Now: at})
		if err != nil {
			return err
		}
	}
	return nil
}

// projectFor returns the project of folder, adding it when there is none.
func projectFor(ctx context.Context, db *store.DB, folder string) (string, error) {
	if folder == "" {
		return "", errors.New("importer: the session does not say which folder it ran in; pick a project")
	}
	p, err := store.ProjectByPath(ctx, db.R, folder)
	if err == nil {
		return p.ID, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	git := false
	if _, err := os.Stat(filepath.Join(folder, ".git")); err == nil {
		git = true
	}
	p, err = store.AddProject(ctx, db.W, store.NewProject{Name: filepath.Base(folder), Path: folder, IsGitRepo: git})
	if err != nil {
		return "", fmt.Errorf("importer: add project %s: %w", folder, err)
	}
	return p.ID, nil
}

// taskName is the first line of the prompt, at most 80 characters.
func taskName(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if r := []rune(line); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	if line == "" {
		return "Imported session"
	}
	return line
}
