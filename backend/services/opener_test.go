package services_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/opener"
	"github.com/jean-claude/jean-claude/backend/services"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

type urlRecorder struct{ urls []string }

func (r *urlRecorder) OpenURL(u string) { r.urls = append(r.urls, u) }

func TestOpenServiceStaysInTheTaskWorktree(t *testing.T) {
	f := newGitFixture(t)
	id := f.Task("Open things")
	info := f.prepare(id)
	type call struct {
		argv []string
		dir  string
	}
	var calls []call
	browser := &urlRecorder{}
	env := opener.Env{
		Getenv:   func(string) string { return "" },
		LookPath: func(p string) (string, error) { return "/usr/bin/" + p, nil },
	}
	svc := services.WithRunner(services.NewOpenService(t.Context(), f.DB, workspace.New(f.DB, f.G, nil), browser), func(argv []string, dir string) error {
		calls = append(calls, call{argv, dir})
		return nil
	}, env)

	// A path the agent printed in the project folder opens the worktree's copy, at the line.
	if err := svc.OpenInEditor(id, filepath.Join(f.Repo, "README.md"), 3); err != nil {
		t.Fatal(err)
	}
	wt, _ := filepath.EvalSymlinks(info.WorktreePath)
	if got := calls[0].argv; strings.Join(got, " ") != "code -g "+filepath.Join(wt, "README.md")+":3" {
		t.Errorf("editor argv %q", got)
	}
	// Relative paths resolve where the agent runs; escapes are refused.
	if err := svc.OpenInEditor(id, "README.md", 0); err != nil || calls[1].argv[1] != filepath.Join(wt, "README.md") {
		t.Errorf("relative: %v %q", err, calls[1].argv)
	}
	for _, p := range []string{"../../../../etc/passwd", "/etc/passwd", "-rf"} {
		if err := svc.OpenInEditor(id, p, 1); !errors.Is(err, services.ErrInvalidInput) {
			t.Errorf("OpenInEditor(%q) = %v, want refused", p, err)
		}
	}
	if err := svc.OpenInTerminal(id); err != nil || calls[len(calls)-1].dir != info.Cwd || calls[len(calls)-1].argv[0] != "x-terminal-emulator" {
		t.Errorf("terminal: %v %+v", err, calls[len(calls)-1])
	}
	if err := svc.OpenFolder(id); err != nil || strings.Join(calls[len(calls)-1].argv, " ") != "xdg-open "+info.Cwd {
		t.Errorf("folder: %v %+v", err, calls[len(calls)-1])
	}
	if err := svc.OpenURL("https://example.com/docs"); err != nil || len(browser.urls) != 1 {
		t.Errorf("https: %v %v", err, browser.urls)
	}
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "custom://x"} {
		if err := svc.OpenURL(u); !errors.Is(err, services.ErrInvalidInput) {
			t.Errorf("OpenURL(%q) = %v", u, err)
		}
	}
	if len(browser.urls) != 1 {
		t.Errorf("refused links reached the browser: %v", browser.urls)
	}
	if err := svc.SetEditor("vim; rm"); err == nil {
		t.Error("unknown editor choice accepted")
	}
	if err := svc.SetEditor(opener.EditorSystem); err != nil {
		t.Fatal(err)
	}
	if e, _ := svc.GetEditor(); e != opener.EditorSystem {
		t.Errorf("editor %q", e)
	}
}
