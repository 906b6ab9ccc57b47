package services

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/jean-claude/jean-claude/backend/opener"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// Browser opens a checked URL in the default browser. The Wails runtime
// implementation (BrowserOpenURL) lives in app.go.
type Browser interface {
	OpenURL(url string)
}

// editorSetting is the settings key of the editor choice (opener.Editors).
const editorSetting = "opener.editor"

// OpenService opens links in the browser and a task's files and folder in
// the user's editor, terminal and file manager (package opener).
type OpenService struct {
	ctx     context.Context
	ws      *workspace.Manager
	db      *store.DB
	browser Browser
	env     opener.Env
	start   func(argv []string, dir string) error
}

// NewOpenService returns the service.
func NewOpenService(ctx context.Context, db *store.DB, ws *workspace.Manager, browser Browser) *OpenService {
	return &OpenService{ctx: ctx, ws: ws, db: db, browser: browser, env: opener.OSEnv(), start: opener.Start}
}

// OpenURL opens an http, https or mailto link in the default browser; any
// other link is refused with a short reason.
func (s *OpenService) OpenURL(url string) error {
	u, err := opener.CheckURL(url)
	if err != nil {
		return &InputError{Field: "url", Msg: "Only http, https and mailto links are opened.", Err: err}
	}
	if s.browser == nil {
		return errors.New("the window is not ready yet")
	}
	s.browser.OpenURL(u)
	return nil
}

// taskRoot is the folder a task's paths resolve in: its worktree, else its
// project folder.
func (s *OpenService) taskRoot(taskID string) (root, cwd string, err error) {
	info, err := s.ws.Info(s.ctx, taskID)
	if err != nil {
		return "", "", userErr(err)
	}
	root = info.WorktreePath
	if root == "" {
		root = info.Cwd
	}
	return root, info.Cwd, nil
}

// inWorktree maps an absolute path into the task's project folder (agents
// often print those) to the same file in the task's worktree; other paths
// are returned as they are (Resolve decides).
func (s *OpenService) inWorktree(taskID, root, cwd, p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	t, err := s.ws.Task(s.ctx, taskID)
	if err != nil || t.WorktreePath == "" || root != t.WorktreePath {
		return p
	}
	rel, err := filepath.Rel(t.Project.Path, p)
	if err != nil || !filepath.IsLocal(rel) {
		return p
	}
	return filepath.Join(cwd, rel) // cwd: the project's place in the worktree
}

// OpenInEditor opens a file of the task (absolute, or relative to its
// folder) at a line (0 when unknown) in the user's editor. Paths outside the
// task's worktree (or project folder) are refused.
func (s *OpenService) OpenInEditor(taskID, path string, line int) error {
	root, cwd, err := s.taskRoot(taskID)
	if err != nil {
		return err
	}
	if path != "" && !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path) // relative to where the agent runs
	}
	abs, err := opener.Resolve(root, s.inWorktree(taskID, root, cwd, path))
	if err != nil {
		return &InputError{Field: "path", Msg: fmt.Sprintf("%s cannot be opened: it is not a file of this task's folder.", path), Err: err}
	}
	choice, err := s.GetEditor()
	if err != nil {
		return err
	}
	argv, err := opener.EditorCommand(choice, abs, max(line, 0), s.env)
	if err != nil {
		return userErr(err)
	}
	return userErr(s.start(argv, root))
}

// OpenInTerminal opens the system terminal ($TERMINAL, x-terminal-emulator,
// ...) in the task's folder.
func (s *OpenService) OpenInTerminal(taskID string) error {
	_, cwd, err := s.taskRoot(taskID)
	if err != nil {
		return err
	}
	argv, err := opener.TerminalCommand(s.env)
	if err != nil {
		return userErr(err)
	}
	return userErr(s.start(argv, cwd))
}

// OpenFolder shows the task's folder in the file manager.
func (s *OpenService) OpenFolder(taskID string) error {
	_, cwd, err := s.taskRoot(taskID)
	if err != nil {
		return err
	}
	return userErr(s.start(opener.FolderCommand(cwd), cwd))
}

// Editors lists the editor choices: auto, env ($VISUAL/$EDITOR), code
// (VS Code), xdg-open (the system default).
func (s *OpenService) Editors() []string { return opener.Editors }

// GetEditor returns the editor choice (auto when unset).
func (s *OpenService) GetEditor() (string, error) {
	v, ok, err := store.SettingValue(s.ctx, s.db.R, editorSetting)
	if err != nil {
		return "", userErr(err)
	}
	if !ok || !slices.Contains(opener.Editors, v) {
		return opener.EditorAuto, nil
	}
	return v, nil
}

// SetEditor saves the editor choice.
func (s *OpenService) SetEditor(choice string) error {
	if !slices.Contains(opener.Editors, choice) {
		return &InputError{Field: "editor", Msg: fmt.Sprintf("Unknown editor choice %q.", choice), Err: ErrInvalidInput}
	}
	return userErr(store.SetSetting(s.ctx, s.db.W, editorSetting, choice))
}

// WithRunner replaces how s starts programs and what the environment says
// (tests). A function, not a method: every method of a bound service is
// exposed to the frontend.
func WithRunner(s *OpenService, start func(argv []string, dir string) error, env opener.Env) *OpenService {
	s.start, s.env = start, env
	return s
}
