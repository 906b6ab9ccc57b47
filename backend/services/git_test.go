package services_test

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/workspace"
	"github.com/jean-claude/jean-claude/backend/workspace/workspacetest"
)

type gitRecorder struct {
	mu     sync.Mutex
	events []string
}

func (r *gitRecorder) Emit(name string, payload any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if u, ok := payload.(services.GitUpdated); ok {
		name += " " + u.TaskID
	}
	r.events = append(r.events, name)
}

type gitFixture struct {
	*workspacetest.Fixture
	svc *services.GitService
	rec *gitRecorder
}

func newGitFixture(t *testing.T) *gitFixture {
	t.Helper()
	f := &gitFixture{Fixture: workspacetest.New(t), rec: &gitRecorder{}}
	f.svc = services.NewGitService(t.Context(), workspace.New(f.DB, f.G, nil), f.rec)
	return f
}

func (f *gitFixture) prepare(id string) services.TaskGitInfo {
	f.T.Helper()
	info, err := f.svc.PrepareTaskWorktree(id)
	if err != nil {
		f.T.Fatal(err)
	}
	return info
}

// The worktree rules themselves are tested in backend/workspace; this
// checks what the service adds: its DTOs, its errors, its events.
func TestGitServiceMapsAndEmits(t *testing.T) {
	f := newGitFixture(t)
	id := f.Task("Add a feature")
	info := f.prepare(id)
	if info.WorktreePath == "" || info.Cwd != info.WorktreePath || info.SourceBranch != "main" || !info.UseWorktree {
		t.Fatalf("prepared = %+v", info)
	}
	f.Write(info.WorktreePath, "feature.txt", "one\ntwo\n")
	st, err := f.svc.Status(id)
	if err != nil || st.TaskID != id || st.WorktreePath != info.WorktreePath || !st.HasWorktree || st.Clean ||
		!st.CanCommit || st.CanMerge || st.MergeBlocked == "" || st.Status.Untracked != 1 {
		t.Errorf("status = %+v, %v", st, err)
	}
	if d, err := f.svc.Diff(id); err != nil || !d.Available || d.TaskID != id || d.Added != 2 || len(d.Files) != 1 {
		t.Errorf("diff = %+v, %v", d, err)
	}
	// Validation errors are the services' own (the UI words them).
	var ie *services.InputError
	if _, err := f.svc.Commit(id, " "); !errors.Is(err, services.ErrInvalidInput) || !errors.As(err, &ie) || ie.Field != "message" {
		t.Errorf("empty message: %v", err)
	}
	if _, err := f.svc.SetProjectSettings(f.Project.ID, services.ProjectGitSettings{WorktreeRoot: "relative"}); !errors.Is(err, services.ErrInvalidInput) {
		t.Errorf("relative worktree root: %v", err)
	}
	if _, err := f.svc.SetSetupSettings(f.Project.ID, services.ProjectSetupSettings{CopyGlobs: "../up"}); !errors.Is(err, services.ErrInvalidInput) {
		t.Errorf("escaping glob: %v", err)
	}
	if _, err := f.svc.Commit(id, "Add feature.txt"); err != nil {
		t.Fatal(err)
	}
	out, err := f.svc.Merge(id, services.MergeInput{RemoveWorktree: true})
	if err != nil || !out.FastForward || out.Into != "main" || !out.WorktreeRemoved || out.Task.TaskID != id ||
		out.Task.MergedAt == nil || out.Task.WorktreePath != "" {
		t.Errorf("merge = %+v, %v", out, err)
	}
	if _, err := f.svc.Commit(id, "x"); !errors.Is(err, workspace.ErrNoWorktree) {
		t.Errorf("commit without worktree: %v", err)
	}
	if s, err := f.svc.SetupSettings(f.Project.ID); err != nil || s.ProjectID != f.Project.ID {
		t.Errorf("setup settings = %+v, %v", s, err)
	}
	f.rec.mu.Lock()
	events := strings.Join(f.rec.events, "|")
	f.rec.mu.Unlock()
	if strings.Count(events, "git:updated "+id) != 3 { // prepare, commit, merge (not the refused calls)
		t.Errorf("events = %s", events)
	}
}
