package agentmgr

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/jean-claude/jean-claude/backend/inputerr"
)

// Login is an agent's own interactive login, ready to run in a terminal.
// Its program and arguments are the app's (SignInOf), never user text.
type Login struct {
	Path string   // the agent's binary (its settings' path, else found)
	Args []string // the login command's arguments
	// Env is this process's environment, the terminal's TERM and COLORTERM,
	// and the agent's settings' variables.
	Env []string
	// Command is what runs, for the dialog's title ("claude auth login").
	Command string
}

// Login returns spec's login command. An agent that signs in with an API
// key only is an inputerr naming the key; one not installed is an error.
func (m *Manager) Login(ctx context.Context, spec Spec) (Login, error) {
	si := SignInOf(spec)
	if si.Args == nil {
		return Login{}, inputerr.New("backend", nil, "%s signs in with an API key (Agents page → %s), not a login command", spec.DisplayName, si.KeyVar)
	}
	set, err := m.Settings(ctx, spec.Backend)
	if err != nil {
		return Login{}, err
	}
	path, _, err := m.Resolve(spec, set.BinaryPath)
	if err != nil {
		return Login{}, fmt.Errorf("%s is not installed: %w", spec.DisplayName, err)
	}
	env := append(os.Environ(), "TERM=xterm-256color", "COLORTERM=truecolor")
	for k, v := range set.Env {
		env = append(env, k+"="+v)
	}
	cmd := strings.Join(append([]string{spec.Command}, si.Args...), " ")
	return Login{Path: path, Args: si.Args, Env: env, Command: cmd}, nil
}
