package services

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/term"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// TerminalService is the embedded terminal: an agent's own interactive
// sign-in (`claude auth login`, `codex login`, `opencode auth login`) and
// the task shells (taskterminal.go), each in a PTY rendered by xterm.js. Output arrives as
// "terminal:output" events ({id, data: base64}), the end as
// "terminal:exit" ({id, code}).
type TerminalService struct {
	ctx   context.Context
	terms *term.Manager
	mgr   *agentmgr.Manager
	specs func() []agentmgr.Spec
	ws    *workspace.Manager // task shells start in the task's worktree
}

// NewTerminalService returns the service over terms; ws (may be nil)
// places task shells.
func NewTerminalService(ctx context.Context, terms *term.Manager, mgr *agentmgr.Manager, specs func() []agentmgr.Spec, ws *workspace.Manager) *TerminalService {
	return &TerminalService{ctx: ctx, terms: terms, mgr: mgr, specs: specs, ws: ws}
}

// SignInInfo is a started sign-in terminal.
type SignInInfo struct {
	ID string `json:"id"`
	// Command is what runs, for the dialog's title (e.g. "claude auth login").
	Command string `json:"command"`
}

// StartSignIn runs backend's own login command (agentmgr.Manager.Login)
// in a new terminal of cols×rows, in the home folder. The command and its
// arguments are the app's, never user text.
func (s *TerminalService) StartSignIn(backend string, cols, rows int) (SignInInfo, error) {
	if s.terms == nil || s.mgr == nil {
		return SignInInfo{}, errors.New("the terminal is not available")
	}
	var spec agentmgr.Spec
	found := false
	for _, sp := range s.specs() {
		if string(sp.Backend) == backend {
			spec, found = sp, true
		}
	}
	if !found {
		return SignInInfo{}, invalid("backend", nil, "unknown agent %q", backend)
	}
	login, err := s.mgr.Login(s.ctx, spec)
	if err != nil {
		return SignInInfo{}, err
	}
	home, _ := os.UserHomeDir()
	id, err := s.terms.Start(term.Spec{Path: login.Path, Args: login.Args, Env: login.Env, Dir: home,
		Cols: clampSize(cols, 80), Rows: clampSize(rows, 24)})
	if err != nil {
		return SignInInfo{}, err
	}
	return SignInInfo{ID: id, Command: login.Command}, nil
}

func clampSize(v, def int) uint16 {
	if v <= 0 || v > 1000 {
		return uint16(def)
	}
	return uint16(v)
}

// Write sends keystrokes (as typed in xterm.js) to terminal id.
func (s *TerminalService) Write(id, data string) error {
	return s.terms.Write(id, []byte(data))
}

// Resize sets terminal id's size.
func (s *TerminalService) Resize(id string, cols, rows int) error {
	return s.terms.Resize(id, clampSize(cols, 80), clampSize(rows, 24))
}

// Close kills terminal id's program (and everything it started).
func (s *TerminalService) Close(id string) error {
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	return s.terms.Close(ctx, id)
}
