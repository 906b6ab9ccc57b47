package workspace_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

type gitFixture struct {
	t     *testing.T
	g     *gitx.Git
	env   []string
	repo  string
	db    *store.DB
	ws    *workspace.Manager
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
	f := &gitFixture{t: t, g: g, env: env, repo: filepath.Join(t.TempDir(), "the project"), db: db, tasks: store.NewTasks(db)}
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
	f.ws = workspace.New(db, g, nil)
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

func (f *gitFixture) prepare(id string) workspace.Info {
	f.t.Helper()
	info, err := f.ws.Prepare(f.t.Context(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return info
}

func TestWorkspaceTaskLifecycle(t *testing.T) {
	f := newGitFixture(t)
	id := f.task("Add a feature")

	d, err := f.ws.Diff(t.Context(), id)
	if err != nil || d.Available || d.Reason == "" {
		t.Errorf("diff before start = %+v, %v", d, err)
	}
	info := f.prepare(id)
	if info.WorktreePath == "" || info.Cwd != info.WorktreePath || !strings.HasPrefix(info.BranchName, "jc/add-a-feature-") ||
		info.SourceBranch != "main" || info.BaseCommit != f.git(f.repo, "rev-parse", "main") || !info.UseWorktree {
		t.Fatalf("prepared = %+v", info)
	}
	if filepath.Dir(info.WorktreePath) != filepath.Join(filepath.Dir(f.repo), "the project.worktrees") {
		t.Errorf("worktree %s not in the default folder", info.WorktreePath)
	}
	if diff := cmp.Diff(info, f.prepare(id)); diff != "" {
		t.Errorf("second prepare (-want +got):\n%s", diff)
	}
	// The orchestrator's Workspace: Cwd prepares (and sets up), RunEnded
	// records the head.
	ws := workspace.New(f.db, f.g, nil)
	if cwd, err := ws.Cwd(t.Context(), store.TaskRun{Task: store.Task{ID: id, ProjectID: f.proj.ID}, ProjectPath: f.repo}); err != nil || cwd != info.WorktreePath {
		t.Errorf("Cwd = %q, %v", cwd, err)
	}
	f.write(info.WorktreePath, "agent.txt", "committed by the agent\n")
	f.git(info.WorktreePath, "add", "agent.txt")
	f.git(info.WorktreePath, "commit", "-q", "-m", "agent commit")
	ws.RunEnded(t.Context(), id)
	if got, _ := f.ws.Info(t.Context(), id); got.HeadCommit != f.git(info.WorktreePath, "rev-parse", "HEAD") || got.BaseCommit != info.BaseCommit {
		t.Errorf("after RunEnded = %+v", got)
	}
	f.git(info.WorktreePath, "reset", "-q", "--hard", info.BaseCommit)

	// The agent writes; the diff and status follow.
	f.write(info.WorktreePath, "feature.txt", "one\ntwo\n")
	d, err = f.ws.Diff(t.Context(), id)
	if err != nil || !d.Available || len(d.Files) != 1 || d.Files[0].Path != "feature.txt" || d.Added != 2 ||
		d.Files[0].Patch != "@@ -0,0 +1,2 @@\n+one\n+two\n" {
		t.Fatalf("diff = %+v, %v", d, err)
	}
	st, err := f.ws.Status(t.Context(), id)
	if err != nil || !st.HasWorktree || st.Clean || !st.CanCommit || st.CanMerge || st.MergeBlocked == "" || st.Status.Untracked != 1 {
		t.Errorf("status = %+v, %v", st, err)
	}
	fd, err := f.ws.FileDiff(t.Context(), id, "feature.txt")
	if err != nil || fd.Added != 2 {
		t.Errorf("FileDiff = %+v, %v", fd, err)
	}
	for _, p := range []string{"../x", "/etc/passwd", "", "a/../../b"} {
		if _, err := f.ws.FileDiff(t.Context(), id, p); !errors.Is(err, workspace.ErrInvalidInput) {
			t.Errorf("FileDiff(%q) = %v, want ErrInvalidInput", p, err)
		}
	}

	// Merge refused while dirty; commit; merge.
	if _, err := f.ws.Merge(t.Context(), id, workspace.MergeInput{}); !errors.Is(err, gitx.ErrDirtyWorktree) {
		t.Errorf("merge dirty: %v", err)
	}
	if _, err := f.ws.Commit(t.Context(), id, " "); !errors.Is(err, workspace.ErrInvalidInput) {
		t.Errorf("empty message: %v", err)
	}
	info, err = f.ws.Commit(t.Context(), id, "Add feature.txt")
	if err != nil || info.HeadCommit == info.BaseCommit {
		t.Fatalf("commit = %+v, %v", info, err)
	}
	st, _ = f.ws.Status(t.Context(), id)
	if !st.Clean || !st.CanMerge || st.CommitsAhead != 1 || st.CanCommit {
		t.Errorf("status after commit = %+v", st)
	}
	out, err := f.ws.Merge(t.Context(), id, workspace.MergeInput{RemoveWorktree: true})
	if err != nil {
		t.Fatal(err)
	}
	if !out.FastForward || out.Into != "main" || !out.WorktreeRemoved || out.Task.WorktreePath != "" || out.Task.MergedAt == nil ||
		out.Task.MergeCommit != info.HeadCommit || out.Warning != "" {
		t.Errorf("merge = %+v", out)
	}
	if b, err := os.ReadFile(filepath.Join(f.repo, "feature.txt")); err != nil || string(b) != "one\ntwo\n" {
		t.Errorf("main worktree after merge: %q, %v", b, err)
	}
	if got := f.git(f.repo, "branch", "--list", "jc/*"); got != "" {
		t.Errorf("task branch not deleted: %q", got)
	}
	// The diff still shows the task's work against its base (its commits,
	// not the project folder's later state).
	f.write(f.repo, "README.md", "the user's own edit\n")
	d, err = f.ws.Diff(t.Context(), id)
	if err != nil || !d.Available || len(d.Files) != 1 || d.Files[0].Path != "feature.txt" {
		t.Errorf("diff after merge = %+v, %v", d, err)
	}
	if fd, err := f.ws.FileDiff(t.Context(), id, "feature.txt"); err != nil || fd.Added != 2 {
		t.Errorf("FileDiff after merge = %+v, %v", fd, err)
	}
	if _, err := f.ws.Commit(t.Context(), id, "x"); !errors.Is(err, workspace.ErrNoWorktree) {
		t.Errorf("commit without worktree: %v", err)
	}
	// A follow-up run gets a fresh worktree (same folder) from main's new
	// tip; the earlier merge no longer counts for it.
	again := f.prepare(id)
	if again.WorktreePath != info.WorktreePath || again.BaseCommit != f.git(f.repo, "rev-parse", "main") || again.MergedAt != nil {
		t.Errorf("follow-up worktree = %+v", again)
	}
	f.write(again.WorktreePath, "more.txt", "more\n")
	if _, err := f.ws.Commit(t.Context(), id, "more"); err != nil {
		t.Fatal(err)
	}
	if rm, err := f.ws.DeleteTaskWorkspace(t.Context(), id, false); err != nil || rm.BranchDeleted || rm.KeptBranch == "" {
		t.Errorf("unmerged follow-up work must keep its branch: %+v, %v", rm, err)
	}
}

func TestWorkspaceDeleteSafety(t *testing.T) {
	f := newGitFixture(t)
	dirty, unmerged, discard := f.task("dirty"), f.task("unmerged"), f.task("discard")
	a, b, c := f.prepare(dirty), f.prepare(unmerged), f.prepare(discard)

	f.write(a.WorktreePath, "wip.txt", "not committed\n")
	_, err := f.ws.DeleteTaskWorkspace(t.Context(), dirty, false)
	if !errors.Is(err, gitx.ErrDirtyWorktree) || !strings.Contains(err.Error(), "1 untracked") {
		t.Fatalf("delete dirty: %v", err)
	}
	if _, err := os.Stat(filepath.Join(a.WorktreePath, "wip.txt")); err != nil {
		t.Fatal("refused delete lost the file")
	}
	rm, err := f.ws.DeleteTaskWorkspace(t.Context(), dirty, true)
	if err != nil || !rm.WorktreeRemoved || !rm.BranchDeleted {
		t.Fatalf("forced delete = %+v, %v", rm, err)
	}
	if _, err := os.Stat(a.WorktreePath); !os.IsNotExist(err) {
		t.Error("worktree folder still there")
	}

	// Clean but with an unmerged commit: the folder goes, the branch stays.
	f.write(b.WorktreePath, "keep.txt", "k\n")
	if _, err := f.ws.Commit(t.Context(), unmerged, "keep me"); err != nil {
		t.Fatal(err)
	}
	rm, err = f.ws.DeleteTaskWorkspace(t.Context(), unmerged, false)
	if err != nil || !rm.WorktreeRemoved || rm.BranchDeleted || rm.KeptBranch != b.BranchName {
		t.Errorf("delete unmerged = %+v, %v", rm, err)
	}
	if got := f.git(f.repo, "branch", "--list", b.BranchName); got == "" {
		t.Error("unmerged branch deleted")
	}
	info, _ := f.ws.Info(t.Context(), unmerged)
	if info.WorktreePath != "" || info.BranchName != b.BranchName {
		t.Errorf("info after delete = %+v", info)
	}
	// A follow-up run reopens the kept branch in a worktree, base kept.
	re := f.prepare(unmerged)
	if re.WorktreePath != b.WorktreePath || re.BranchName != b.BranchName || re.BaseCommit != b.BaseCommit || re.HeadCommit == b.BaseCommit {
		t.Errorf("reopened = %+v (was %+v)", re, b)
	}
	if _, err := os.Stat(filepath.Join(re.WorktreePath, "keep.txt")); err != nil {
		t.Errorf("reopened worktree lacks the committed file: %v", err)
	}
	if _, err := f.ws.DeleteTaskWorkspace(t.Context(), unmerged, false); err != nil {
		t.Fatal(err)
	}

	// Discard drops everything of that task only.
	f.write(c.WorktreePath, "x.txt", "x\n")
	if info, err := f.ws.Discard(t.Context(), discard); err != nil || info.WorktreePath != "" || info.BranchName != "" {
		t.Fatalf("discard = %+v, %v", info, err)
	}
	if _, err := os.Stat(c.WorktreePath); !os.IsNotExist(err) {
		t.Error("discarded worktree still there")
	}
	if d, err := f.ws.Diff(t.Context(), discard); err != nil || d.Available || !strings.Contains(d.Reason, "discarded") {
		t.Errorf("diff after discard = %+v, %v", d, err)
	}
	// The branch kept by a delete still has a diff (base..head).
	if d, err := f.ws.Diff(t.Context(), unmerged); err != nil || !d.Available || len(d.Files) != 1 || d.Files[0].Path != "keep.txt" {
		t.Errorf("diff of a kept branch = %+v, %v", d, err)
	}
	if got := f.git(f.repo, "status", "--porcelain"); got != "" {
		t.Errorf("main worktree touched: %q", got)
	}
	if got := f.git(f.repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Errorf("worktrees left:\n%s", got)
	}
	// Nothing to remove for a task without a worktree.
	if rm, err := f.ws.DeleteTaskWorkspace(t.Context(), f.task("none"), false); err != nil || rm.WorktreeRemoved {
		t.Errorf("delete without worktree = %+v, %v", rm, err)
	}
}

func TestWorkspaceWithoutWorktree(t *testing.T) {
	f := newGitFixture(t)
	ws := workspace.New(f.db, nil, nil) // also: git missing
	id := f.task("in place")
	off := false
	if _, err := f.ws.SetTaskOptions(t.Context(), id, workspace.TaskOptions{UseWorktree: &off}); err != nil {
		t.Fatal(err)
	}
	info := f.prepare(id)
	if info.WorktreePath != "" || info.Cwd != f.repo || info.BaseCommit == "" || info.UseWorktree {
		t.Fatalf("prepare without worktree = %+v", info)
	}
	f.write(f.repo, "README.md", "changed in place\n")
	d, err := f.ws.Diff(t.Context(), id)
	if err != nil || !d.Available || len(d.Files) != 1 || d.Files[0].Path != "README.md" {
		t.Errorf("diff in place = %+v, %v", d, err)
	}
	if _, err := f.ws.Merge(t.Context(), id, workspace.MergeInput{}); !errors.Is(err, workspace.ErrNoWorktree) {
		t.Errorf("merge without worktree: %v", err)
	}
	if _, err := f.ws.SetTaskOptions(t.Context(), id, workspace.TaskOptions{}); !errors.Is(err, workspace.ErrInvalidInput) {
		t.Errorf("options after start: %v", err)
	}
	// Git missing: prepare runs in the project folder, actions say why.
	id2 := f.task("no git")
	if info, err := ws.Prepare(context.Background(), id2); err != nil || info.Cwd != f.repo {
		t.Errorf("prepare without git = %+v, %v", info, err)
	}
	if _, err := ws.Commit(context.Background(), id2, "m"); !errors.Is(err, gitx.ErrGitNotFound) {
		t.Errorf("commit without git: %v", err)
	}
}

func TestWorkspaceSettingsAndBranches(t *testing.T) {
	f := newGitFixture(t)
	f.git(f.repo, "branch", "dev")
	bs, err := f.ws.Branches(t.Context(), f.proj.ID)
	if err != nil || len(bs) != 2 || bs[0].Name != "dev" || !bs[1].Current {
		t.Errorf("branches = %+v, %v", bs, err)
	}
	s, err := f.ws.ProjectSettings(t.Context(), f.proj.ID)
	if err != nil || !s.WorktreesEnabled || s.WorktreeRoot != "" || s.DefaultWorktreeRoot != filepath.Join(filepath.Dir(f.repo), "the project.worktrees") {
		t.Errorf("settings = %+v, %v", s, err)
	}
	for _, bad := range []workspace.ProjectSettings{
		{WorktreeRoot: "relative"},
		{WorktreeRoot: f.repo},
		{DefaultSourceBranch: "--foo"},
		{DefaultSourceBranch: "missing"},
	} {
		if _, err := f.ws.SetProjectSettings(t.Context(), f.proj.ID, bad); !errors.Is(err, workspace.ErrInvalidInput) {
			t.Errorf("SetProjectSettings(%+v) = %v, want ErrInvalidInput", bad, err)
		}
	}
	root := filepath.Join(t.TempDir(), "my trees")
	s, err = f.ws.SetProjectSettings(t.Context(), f.proj.ID, workspace.ProjectSettings{WorktreesEnabled: true, WorktreeRoot: root, DefaultSourceBranch: "dev"})
	if err != nil || s.WorktreeRoot != root || s.DefaultSourceBranch != "dev" {
		t.Fatalf("set = %+v, %v", s, err)
	}
	info := f.prepare(f.task("custom"))
	if filepath.Dir(info.WorktreePath) != root || info.SourceBranch != "dev" {
		t.Errorf("prepared with settings = %+v", info)
	}
	if _, err := f.ws.SetTaskOptions(t.Context(), f.task("bad source"), workspace.TaskOptions{SourceBranch: "-b"}); !errors.Is(err, workspace.ErrInvalidInput) {
		t.Errorf("bad source branch: %v", err)
	}
}

func TestWorkspaceEmptyRepository(t *testing.T) {
	f := newGitFixture(t)
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	f.git(empty, "init", "-q", "-b", "main")
	p, err := store.NewProjects(f.db).Add(t.Context(), store.NewProject{Name: "e", Path: empty, IsGitRepo: true, DefaultAgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := f.tasks.Create(t.Context(), store.NewTask{ProjectID: p.ID, Prompt: "p", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	info := f.prepare(tk.ID)
	if info.Cwd != empty || info.WorktreePath != "" || info.Notice == "" {
		t.Errorf("prepare in an empty repository = %+v", info)
	}
	if d, err := f.ws.Diff(t.Context(), tk.ID); err != nil || d.Available {
		t.Errorf("diff = %+v, %v", d, err)
	}
}

func TestWorkspaceProjectInSubfolder(t *testing.T) {
	f := newGitFixture(t)
	sub := filepath.Join(f.repo, "apps", "web")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	f.write(sub, "index.js", "x\n")
	f.git(f.repo, "add", ".")
	f.git(f.repo, "commit", "-q", "-m", "web")
	p, err := store.NewProjects(f.db).Add(t.Context(), store.NewProject{Name: "web", Path: sub, IsGitRepo: true, DefaultAgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := f.tasks.Create(t.Context(), store.NewTask{ProjectID: p.ID, Prompt: "p", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	info := f.prepare(tk.ID)
	if info.Cwd != filepath.Join(info.WorktreePath, "apps", "web") {
		t.Errorf("cwd = %q, worktree %q", info.Cwd, info.WorktreePath)
	}
	if _, err := os.Stat(filepath.Join(info.Cwd, "index.js")); err != nil {
		t.Errorf("cwd has no index.js: %v", err)
	}
	// The worktree is the whole repository's, next to the repository.
	if filepath.Dir(info.WorktreePath) != filepath.Join(filepath.Dir(f.repo), "the project.worktrees") {
		t.Errorf("worktree at %s", info.WorktreePath)
	}
}
