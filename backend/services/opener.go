package services

import (
	"context"
	"errors"
	"fmt"
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

// OpenInEditor opens a file of the task (absolute, or relative to its
// folder) at a line (0 when unknown) in the user's editor; a path into the
// project folder opens the same file in the task's worktree
// (workspace.Paths.File). Paths outside the task's worktree (or project
// folder) are refused.
func (s *OpenService) OpenInEditor(taskID, path string, line int) error {
	at, err := s.ws.Paths(s.ctx, taskID)
	if err != nil {
		return userErr(err)
	}
	abs, err := opener.Resolve(at.Root, at.File(path))
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
	return userErr(s.start(argv, at.Root))
}

// OpenInTerminal opens the system terminal ($TERMINAL, x-terminal-emulator,
// ...) in the task's folder.
func (s *OpenService) OpenInTerminal(taskID string) error {
	at, err := s.ws.Paths(s.ctx, taskID)
	if err != nil {
		return userErr(err)
	}
	argv, err := opener.TerminalCommand(s.env)
	if err != nil {
		return userErr(err)
	}
	return userErr(s.start(argv, at.Cwd))
}

// OpenFolder shows the task's folder in the file manager.
func (s *OpenService) OpenFolder(taskID string) error {
	at, err := s.ws.Paths(s.ctx, taskID)
	if err != nil {
		return userErr(err)
	}
	return userErr(s.start(opener.FolderCommand(at.Cwd), at.Cwd))
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
