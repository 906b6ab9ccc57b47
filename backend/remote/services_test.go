package remote_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// The app's services over a real sshd: the host comes from the ssh config,
// its health is checked and stored, a project is added on it, and a task's
// worktree, diff, commit and merge all run with the host's git.
func TestServicesRemoteProject(t *testing.T) {
	srv := sshdtest.Start(t)
	pool, err := remote.NewPool(remote.Options{ConfigFile: srv.ConfigFile, ControlDir: srv.ControlDir})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "jc.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hs := services.NewHostService(ctx, db, pool, srv.ConfigFile, nil)
	list, err := hs.ListHosts()
	if err != nil || len(list) != 1 || list[0].Name != sshdtest.Alias || !list[0].FromConfig {
		t.Fatalf("ListHosts = %+v, %v", list, err)
	}
	if h, err := hs.CheckHost(sshdtest.Alias); err != nil || !h.Reachable {
		t.Fatalf("CheckHost = %+v, %v", h, err)
	}
	if list, _ = hs.ListHosts(); list[0].Health == nil || !list[0].Health.Reachable {
		t.Fatalf("health not stored: %+v", list[0])
	}

	// A repository on "the remote", made by the host's git.
	cfg := filepath.Join(srv.Home, "gitconfig")
	if err := os.WriteFile(cfg, []byte("[init]\n\tdefaultBranch = main\n[user]\n\tname = T\n\temail = t@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + cfg}
	c, _ := pool.Client(sshdtest.Alias)
	repo := filepath.Join(srv.Home, "code", "app")
	if _, err := c.Output(ctx, "mkdir", "-p", repo); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Output(ctx, "env", env[0], env[1], "git", "-C", repo, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Output(ctx, "env", env[0], env[1], "git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "init"); err != nil {
		t.Fatal(err)
	}
	p, err := hs.AddRemoteProject(sshdtest.Alias, repo, "")
	if err != nil || !p.IsGitRepo || p.Name != "app" {
		t.Fatalf("AddRemoteProject = %+v, %v", p, err)
	}
	if ph, err := hs.ProjectHost(p.ID); err != nil || ph.Host != sshdtest.Alias || ph.Path != repo {
		t.Fatalf("ProjectHost = %+v, %v", ph, err)
	}

	ws := workspace.New(db, nil, nil) // no local git needed
	ws.SetRemote(&remote.ProjectGits{Pool: pool, DB: db, Env: env})
	svc := services.NewGitService(ctx, ws, nil)
	if _, err := svc.SetProjectSettings(p.ID, services.ProjectGitSettings{WorktreesEnabled: true}); err != nil {
		t.Fatalf("SetProjectSettings: %v", err)
	}
	tk, err := store.CreateTask(ctx, db.W, store.NewTask{ProjectID: p.ID, Name: "remote work", Prompt: "p", AgentBackend: agent.BackendClaudeCode})
	if err != nil {
		t.Fatal(err)
	}
	info, err := svc.PrepareTaskWorktree(tk.ID)
	if err != nil || !strings.HasPrefix(info.WorktreePath, repo+".worktrees/") {
		t.Fatalf("Prepare = %+v, %v", info, err)
	}
	if err := os.WriteFile(filepath.Join(info.WorktreePath, "remote.txt"), []byte("on the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := svc.Diff(tk.ID)
	if err != nil || !d.Available || len(d.Files) != 1 || d.Files[0].Path != "remote.txt" {
		t.Fatalf("Diff = %+v, %v", d, err)
	}
	if _, err := svc.Commit(tk.ID, "remote change"); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	out, err := svc.Merge(tk.ID, services.MergeInput{RemoveWorktree: true})
	if err != nil {
		t.Fatalf("Merge: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "remote.txt")); err != nil || string(b) != "on the host\n" {
		t.Fatalf("after merge %+v: %q %v", out, b, err)
	}
	if _, err := os.Stat(info.WorktreePath); !os.IsNotExist(err) {
		t.Fatalf("worktree still there: %v", err)
	}
}
