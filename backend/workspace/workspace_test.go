package workspace_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
	"github.com/jean-claude/jean-claude/backend/workspace/workspacetest"
)

type gitFixture struct {
	*workspacetest.Fixture
	ws *workspace.Manager
}

func newGitFixture(t *testing.T) *gitFixture {
	t.Helper()
	f := &gitFixture{Fixture: workspacetest.New(t)}
	f.ws = workspace.New(f.DB, f.G, nil)
	return f
}

func (f *gitFixture) prepare(id string) workspace.Info {
	f.T.Helper()
	info, err := f.ws.Prepare(f.T.Context(), id)
	if err != nil {
		f.T.Fatal(err)
	}
	return info
}

func TestWorkspaceTaskLifecycle(t *testing.T) {
	f := newGitFixture(t)
	id := f.Task("Add a feature")

	d, err := f.ws.Diff(t.Context(), id)
	if err != nil || d.Available || d.Reason == "" {
		t.Errorf("diff before start = %+v, %v", d, err)
	}
	info := f.prepare(id)
	if info.WorktreePath == "" || info.Cwd != info.WorktreePath || !strings.HasPrefix(info.BranchName, "jc/add-a-feature-") ||
		info.SourceBranch != "main" || info.BaseCommit != f.Git(f.Repo, "rev-parse", "main") || !info.UseWorktree {
		t.Fatalf("prepared = %+v", info)
	}
	if filepath.Dir(info.WorktreePath) != filepath.Join(filepath.Dir(f.Repo), "the project.worktrees") {
		t.Errorf("worktree %s not in the default folder", info.WorktreePath)
	}
	if diff := cmp.Diff(info, f.prepare(id)); diff != "" {
		t.Errorf("second prepare (-want +got):\n%s", diff)
	}
	// The orchestrator's Workspace: Cwd prepares (and sets up), RunEnded
	// records the head.
	ws := workspace.New(f.DB, f.G, nil)
	if cwd, err := ws.Cwd(t.Context(), store.TaskRun{Task: store.Task{ID: id, ProjectID: f.Project.ID}, ProjectPath: f.Repo}); err != nil || cwd != info.WorktreePath {
		t.Errorf("Cwd = %q, %v", cwd, err)
	}
	f.Write(info.WorktreePath, "agent.txt", "committed by the agent\n")
	f.Git(info.WorktreePath, "add", "agent.txt")
	f.Git(info.WorktreePath, "commit", "-q", "-m", "agent commit")
	ws.RunEnded(t.Context(), id)
	if got, _ := f.ws.Info(t.Context(), id); got.HeadCommit != f.Git(info.WorktreePath, "rev-parse", "HEAD") || got.BaseCommit != info.BaseCommit {
		t.Errorf("after RunEnded = %+v", got)
	}
	f.Git(info.WorktreePath, "reset", "-q", "--hard", info.BaseCommit)

	// The agent writes; the diff and status follow.
	f.Write(info.WorktreePath, "feature.txt", "one\ntwo\n")
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
		if _, err := f.ws.FileDiff(t.Context(), id, p); !errors.Is(err, inputerr.ErrInvalid) {
			t.Errorf("FileDiff(%q) = %v, want ErrInvalidInput", p, err)
		}
	}

	// Merge refused while dirty; commit; merge.
	if _, err := f.ws.Merge(t.Context(), id, workspace.MergeInput{}); !errors.Is(err, gitx.ErrDirtyWorktree) {
		t.Errorf("merge dirty: %v", err)
	}
	if _, err := f.ws.Commit(t.Context(), id, " "); !errors.Is(err, inputerr.ErrInvalid) {
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
	if b, err := os.ReadFile(filepath.Join(f.Repo, "feature.txt")); err != nil || string(b) != "one\ntwo\n" {
		t.Errorf("main worktree after merge: %q, %v", b, err)
	}
	if got := f.Git(f.Repo, "branch", "--list", "jc/*"); got != "" {
		t.Errorf("task branch not deleted: %q", got)
	}
	// The diff still shows the task's work against its base (its commits,
	// not the project folder's later state).
	f.Write(f.Repo, "README.md", "the user's own edit\n")
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
	if again.WorktreePath != info.WorktreePath || again.BaseCommit != f.Git(f.Repo, "rev-parse", "main") || again.MergedAt != nil {
		t.Errorf("follow-up worktree = %+v", again)
	}
	f.Write(again.WorktreePath, "more.txt", "more\n")
	if _, err := f.ws.Commit(t.Context(), id, "more"); err != nil {
		t.Fatal(err)
	}
	if rm, err := f.ws.DeleteTaskWorkspace(t.Context(), id, false); err != nil || rm.BranchDeleted || rm.KeptBranch == "" {
		t.Errorf("unmerged follow-up work must keep its branch: %+v, %v", rm, err)
	}
}

func TestWorkspaceDeleteSafety(t *testing.T) {
	f := newGitFixture(t)
	dirty, unmerged, discard := f.Task("dirty"), f.Task("unmerged"), f.Task("discard")
	a, b, c := f.prepare(dirty), f.prepare(unmerged), f.prepare(discard)

	f.Write(a.WorktreePath, "wip.txt", "not committed\n")
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
	f.Write(b.WorktreePath, "keep.txt", "k\n")
	if _, err := f.ws.Commit(t.Context(), unmerged, "keep me"); err != nil {
		t.Fatal(err)
	}
	rm, err = f.ws.DeleteTaskWorkspace(t.Context(), unmerged, false)
	if err != nil || !rm.WorktreeRemoved || rm.BranchDeleted || rm.KeptBranch != b.BranchName {
		t.Errorf("delete unmerged = %+v, %v", rm, err)
	}
	if got := f.Git(f.Repo, "branch", "--list", b.BranchName); got == "" {
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
	f.Write(c.WorktreePath, "x.txt", "x\n")
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
	if got := f.Git(f.Repo, "status", "--porcelain"); got != "" {
		t.Errorf("main worktree touched: %q", got)
	}
	if got := f.Git(f.Repo, "worktree", "list", "--porcelain"); strings.Count(got, "worktree ") != 1 {
		t.Errorf("worktrees left:\n%s", got)
	}
	// Nothing to remove for a task without a worktree.
	if rm, err := f.ws.DeleteTaskWorkspace(t.Context(), f.Task("none"), false); err != nil || rm.WorktreeRemoved {
		t.Errorf("delete without worktree = %+v, %v", rm, err)
	}
}

func TestWorkspaceWithoutWorktree(t *testing.T) {
	f := newGitFixture(t)
	ws := workspace.New(f.DB, nil, nil) // also: git missing
	id := f.Task("in place")
	off := false
	if _, err := f.ws.SetTaskOptions(t.Context(), id, workspace.TaskOptions{UseWorktree: &off}); err != nil {
		t.Fatal(err)
	}
	info := f.prepare(id)
	if info.WorktreePath != "" || info.Cwd != f.Repo || info.BaseCommit == "" || info.UseWorktree {
		t.Fatalf("prepare without worktree = %+v", info)
	}
	f.Write(f.Repo, "README.md", "changed in place\n")
	d, err := f.ws.Diff(t.Context(), id)
	if err != nil || !d.Available || len(d.Files) != 1 || d.Files[0].Path != "README.md" {
		t.Errorf("diff in place = %+v, %v", d, err)
	}
	if _, err := f.ws.Merge(t.Context(), id, workspace.MergeInput{}); !errors.Is(err, workspace.ErrNoWorktree) {
		t.Errorf("merge without worktree: %v", err)
	}
	if _, err := f.ws.SetTaskOptions(t.Context(), id, workspace.TaskOptions{}); !errors.Is(err, inputerr.ErrInvalid) {
		t.Errorf("options after start: %v", err)
	}
	// Git missing: prepare runs in the project folder, actions say why.
	id2 := f.Task("no git")
	if info, err := ws.Prepare(context.Background(), id2); err != nil || info.Cwd != f.Repo {
		t.Errorf("prepare without git = %+v, %v", info, err)
	}
	if _, err := ws.Commit(context.Background(), id2, "m"); !errors.Is(err, gitx.ErrGitNotFound) {
		t.Errorf("commit without git: %v", err)
	}
}

func TestWorkspaceSettingsAndBranches(t *testing.T) {
	f := newGitFixture(t)
	f.Git(f.Repo, "branch", "dev")
	bs, err := f.ws.Branches(t.Context(), f.Project.ID)
	if err != nil || len(bs) != 2 || bs[0].Name != "dev" || !bs[1].Current {
		t.Errorf("branches = %+v, %v", bs, err)
	}
	s, err := f.ws.ProjectSettings(t.Context(), f.Project.ID)
	if err != nil || !s.WorktreesEnabled || s.WorktreeRoot != "" || s.DefaultWorktreeRoot != filepath.Join(filepath.Dir(f.Repo), "the project.worktrees") {
		t.Errorf("settings = %+v, %v", s, err)
	}
	for _, bad := range []workspace.ProjectSettings{
		{WorktreeRoot: "relative"},
		{WorktreeRoot: f.Repo},
		{DefaultSourceBranch: "--foo"},
		{DefaultSourceBranch: "missing"},
	} {
		if _, err := f.ws.SetProjectSettings(t.Context(), f.Project.ID, bad); !errors.Is(err, inputerr.ErrInvalid) {
			t.Errorf("SetProjectSettings(%+v) = %v, want ErrInvalidInput", bad, err)
		}
	}
	root := filepath.Join(t.TempDir(), "my trees")
	s, err = f.ws.SetProjectSettings(t.Context(), f.Project.ID, workspace.ProjectSettings{WorktreesEnabled: true, WorktreeRoot: root, DefaultSourceBranch: "dev"})
	if err != nil || s.WorktreeRoot != root || s.DefaultSourceBranch != "dev" {
		t.Fatalf("set = %+v, %v", s, err)
	}
	info := f.prepare(f.Task("custom"))
	if filepath.Dir(info.WorktreePath) != root || info.SourceBranch != "dev" {
		t.Errorf("prepared with settings = %+v", info)
	}
	if _, err := f.ws.SetTaskOptions(t.Context(), f.Task("bad source"), workspace.TaskOptions{SourceBranch: "-b"}); !errors.Is(err, inputerr.ErrInvalid) {
		t.Errorf("bad source branch: %v", err)
	}
}

func TestWorkspaceEmptyRepository(t *testing.T) {
	f := newGitFixture(t)
	empty := filepath.Join(t.TempDir(), "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	f.Git(empty, "init", "-q", "-b", "main")
	p, err := store.AddProject(t.Context(), f.DB.W, store.NewProject{Name: "e", Path: empty, IsGitRepo: true, DefaultAgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := store.CreateTask(t.Context(), f.DB.W, store.NewTask{ProjectID: p.ID, Prompt: "p", AgentBackend: agent.BackendClaudeCode})
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
	sub := filepath.Join(f.Repo, "apps", "web")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	f.Write(sub, "index.js", "x\n")
	f.Git(f.Repo, "add", ".")
	f.Git(f.Repo, "commit", "-q", "-m", "web")
	p, err := store.AddProject(t.Context(), f.DB.W, store.NewProject{Name: "web", Path: sub, IsGitRepo: true, DefaultAgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := store.CreateTask(t.Context(), f.DB.W, store.NewTask{ProjectID: p.ID, Prompt: "p", AgentBackend: agent.BackendClaudeCode})
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
	if filepath.Dir(info.WorktreePath) != filepath.Join(filepath.Dir(f.Repo), "the project.worktrees") {
		t.Errorf("worktree at %s", info.WorktreePath)
	}
}

// hostRunner is git on a "host" that shares this machine's git but not its
// folders: a path in moved is, on the host, where it was moved to.
type hostRunner struct {
	gitx.Local // the file operations (they do not use its binary)
	moved      map[string]string
}

func (h *hostRunner) Git(ctx context.Context, dir string, args, env []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	return cmd.Run()
}

func (h *hostRunner) Stat(ctx context.Context, path string) (bool, bool, error) {
	if to, ok := h.moved[path]; ok {
		path = to
	}
	return h.Local.Stat(ctx, path)
}

// onHost is a RemoteGit that puts every project on the host.
type onHost struct{ g *gitx.Git }

func (h onHost) GitFor(context.Context, string) (*gitx.Git, bool) { return h.g, true }

// A remote project's worktree is looked for on its host, not here: a
// task started before (resumed, or after a restart) finds it there.
func TestWorkspaceOnAHostFindsTheWorktreeThere(t *testing.T) {
	f := newGitFixture(t)
	host := &hostRunner{moved: map[string]string{}}
	g, err := gitx.New(gitx.Options{Env: f.Env, Runner: host})
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(f.DB, nil, nil) // no local git: the host's runs every call
	ws.SetRemote(onHost{g})
	id := f.Task("on a host")
	info, err := ws.Prepare(t.Context(), id)
	if err != nil || info.WorktreePath == "" {
		t.Fatalf("prepare = %+v, %v", info, err)
	}
	// The worktree is on the host only: nothing at that path here.
	there := filepath.Join(t.TempDir(), "on the host")
	if err := os.Rename(info.WorktreePath, there); err != nil {
		t.Fatal(err)
	}
	host.moved[info.WorktreePath] = there
	if again, err := ws.Prepare(t.Context(), id); err != nil || again.WorktreePath != info.WorktreePath {
		t.Errorf("prepare again = %+v, %v", again, err)
	}
	// Gone on the host too: refused, as for a local worktree removed by hand.
	delete(host.moved, info.WorktreePath)
	if _, err := ws.Prepare(t.Context(), id); !errors.Is(err, workspace.ErrNoWorktree) {
		t.Errorf("prepare without the worktree: %v", err)
	}
}

// A remote project whose resolver cannot run the setup on its host
// (no workspace.RemoteSetup) fails its setup saying so: nothing is copied
// nor run on this machine, even where the worktree's path exists here.
func TestRemoteSetupNeverRunsHere(t *testing.T) {
	f := newGitFixture(t)
	g, err := gitx.New(gitx.Options{Env: f.Env})
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace.New(f.DB, nil, nil)
	ws.SetRemote(onHost{g})
	f.Write(f.Repo, ".env", "TOKEN=1\n")
	if _, err := ws.SetSetupSettings(t.Context(), f.Project.ID, workspace.SetupSettings{
		CopyGlobs: ".env", SetupCommand: "touch ran-here", SetupRequired: true}); err != nil {
		t.Fatal(err)
	}
	id := f.Task("on a host")
	tr, err := store.LoadTaskRun(t.Context(), f.DB.R, id)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ws.Cwd(t.Context(), tr)
	if !errors.Is(err, workspace.ErrSetupFailed) || !strings.Contains(err.Error(), "cannot run on this project's host") {
		t.Fatalf("Cwd = %v", err)
	}
	info, err := ws.Prepare(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".env", "ran-here"} {
		if _, err := os.Stat(filepath.Join(info.WorktreePath, name)); err == nil {
			t.Errorf("%s made on this machine", name)
		}
	}
}
