package services_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
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
	t     *testing.T
	g     *gitx.Git
	env   []string
	repo  string
	db    *store.DB
	svc   *services.GitService
	rec   *gitRecorder
	proj  store.Project
	tasks *store.Tasks
}

func newGitFixture(t *testing.T) *gitFixture {
	t.Helper()
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + global,
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com"}
	g, err := gitx.New(gitx.Options{Env: env})
	if err != nil {
		t.Skipf("git: %v", err)
	}
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &gitFixture{t: t, g: g, env: env, repo: filepath.Join(t.TempDir(), "the project"), db: db, rec: &gitRecorder{}, tasks: store.NewTasks(db)}
	if err := os.Mkdir(f.repo, 0o755); err != nil {
		t.Fatal(err)
	}
	f.git(f.repo, "init", "-q", "-b", "main")
	f.write(f.repo, "README.md", "hello\n")
	f.git(f.repo, "add", ".")
	f.git(f.repo, "commit", "-q", "-m", "init")
	f.proj, err = store.NewProjects(db).Add(t.Context(), store.NewProject{Name: "p", Path: f.repo, IsGitRepo: true, DefaultAgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = services.NewGitService(t.Context(), workspace.New(db, g, nil), f.rec)
	return f
}

func (f *gitFixture) git(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), f.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (f *gitFixture) write(dir, name, content string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *gitFixture) task(name string) string {
	f.t.Helper()
	tk, err := f.tasks.Create(f.t.Context(), store.NewTask{ProjectID: f.proj.ID, Name: name, Prompt: "p", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		f.t.Fatal(err)
	}
	return tk.ID
}

func (f *gitFixture) prepare(id string) services.TaskGitInfo {
	f.t.Helper()
	info, err := f.svc.PrepareTaskWorktree(id)
	if err != nil {
		f.t.Fatal(err)
	}
	return info
}

// The worktree rules themselves are tested in backend/workspace; this
// checks what the service adds: its DTOs, its errors, its events.
func TestGitServiceMapsAndEmits(t *testing.T) {
	f := newGitFixture(t)
	id := f.task("Add a feature")
	info := f.prepare(id)
	if info.WorktreePath == "" || info.Cwd != info.WorktreePath || info.SourceBranch != "main" || !info.UseWorktree {
		t.Fatalf("prepared = %+v", info)
	}
	f.write(info.WorktreePath, "feature.txt", "one\ntwo\n")
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
	if _, err := f.svc.SetProjectSettings(f.proj.ID, services.ProjectGitSettings{WorktreeRoot: "relative"}); !errors.Is(err, services.ErrInvalidInput) {
		t.Errorf("relative worktree root: %v", err)
	}
	if _, err := f.svc.SetSetupSettings(f.proj.ID, services.ProjectSetupSettings{CopyGlobs: "../up"}); !errors.Is(err, services.ErrInvalidInput) {
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
	if s, err := f.svc.SetupSettings(f.proj.ID); err != nil || s.ProjectID != f.proj.ID {
		t.Errorf("setup settings = %+v, %v", s, err)
	}
	f.rec.mu.Lock()
	events := strings.Join(f.rec.events, "|")
	f.rec.mu.Unlock()
	if strings.Count(events, "git:updated "+id) != 3 { // prepare, commit, merge (not the refused calls)
		t.Errorf("events = %s", events)
	}
}
