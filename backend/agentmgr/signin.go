package agentmgr

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// SignIn is how an agent signs in: its CLI's own interactive login (run
// in the app's embedded terminal) or an API key in its environment.
type SignIn struct {
	// Args are the login command's arguments (after the agent's binary);
	// nil when the CLI has no login command of its own.
	Args []string `json:"args"`
	// KeyVar is the environment variable that takes an API key ("" none).
	KeyVar string `json:"keyVar"`
	// Credentials are files under HOME whose presence means the CLI has
	// signed in before.
	Credentials []string `json:"-"`
}

// SignInOf is spec's way of signing in.
func SignInOf(spec Spec) SignIn {
	switch spec.Backend {
	case agent.BackendClaudeCode:
		return SignIn{Args: []string{"auth", "login"}, KeyVar: "ANTHROPIC_API_KEY",
			Credentials: []string{".claude/.credentials.json"}}
	case agent.BackendCodex:
		return SignIn{Args: []string{"login"}, KeyVar: "OPENAI_API_KEY", Credentials: []string{".codex/auth.json"}}
	case agent.BackendOpenCode:
		return SignIn{Args: []string{"auth", "login"}, KeyVar: "ANTHROPIC_API_KEY",
			Credentials: []string{".local/share/opencode/auth.json"}}
	case agent.BackendGemini:
		return SignIn{KeyVar: "GEMINI_API_KEY", Credentials: []string{".gemini/oauth_creds.json"}}
	}
	switch spec.Command {
	case "gemini":
		return SignIn{KeyVar: "GEMINI_API_KEY", Credentials: []string{".gemini/oauth_creds.json"}}
	case "codex-acp":
		return SignIn{KeyVar: "OPENAI_API_KEY", Credentials: []string{".codex/auth.json"}}
	case "claude-code-acp":
		return SignIn{KeyVar: "ANTHROPIC_API_KEY", Credentials: []string{".claude/.credentials.json"}}
	case "opencode":
		return SignIn{KeyVar: "ANTHROPIC_API_KEY", Credentials: []string{".local/share/opencode/auth.json"}}
	}
	return SignIn{}
}

// SignedIn tells whether spec's agent looks signed in: an API key in its
// settings or the app's environment, or the CLI's credentials file under
// home. known is false for agents the app cannot tell about.
func SignedIn(spec Spec, s AgentSettings, home string) (signedIn, known bool) {
	si := SignInOf(spec)
	if si.KeyVar == "" && len(si.Credentials) == 0 {
		return false, false
	}
	if si.KeyVar != "" && (s.Env[si.KeyVar] != "" || os.Getenv(si.KeyVar) != "") {
		return true, true
	}
	if spec.Backend == agent.BackendClaudeCode && (s.Env["CLAUDE_CODE_OAUTH_TOKEN"] != "" || os.Getenv("CLAUDE_CODE_OAUTH_TOKEN") != "") {
		return true, true
	}
	for _, c := range si.Credentials {
		if _, err := os.Stat(filepath.Join(home, filepath.FromSlash(c))); err == nil {
			return true, true
		}
	}
	return false, true
}

// notSignedInRE matches what the agent CLIs print when they have no
// credentials: Claude Code's "Not logged in · Please run /login" result
// and "Invalid API key", Codex's "Not signed in"/401, Gemini CLI's
// missing auth method or key, OpenCode's provider auth errors.
var notSignedInRE = regexp.MustCompile(`(?i)(not logged in|please run /login|invalid api key|not signed in|` +
	`please (sign|log) ?in|authentication_error|oauth token (has )?expired|401 unauthorized|` +
	`set an auth method|GEMINI_API_KEY environment variable not found|api key (is )?(missing|not set)|ProviderAuthError|no api key)`)

// LooksNotSignedIn reports whether an agent's error text says it has no
// valid credentials.
func LooksNotSignedIn(text string) bool { return notSignedInRE.MatchString(text) }

// Problem is why a task's agent could not do its work, in the user's
// words, with the action that fixes it.
type Problem struct {
	// Kind is not-installed | not-signed-in | failed | setup-failed.
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Action is install | sign-in | settings | retry.
	Action      string `json:"action"`
	ActionLabel string `json:"actionLabel"`
}

// Problem kinds and actions.
const (
	ProblemNotInstalled = "not-installed"
	ProblemNotSignedIn  = "not-signed-in"
	ProblemFailed       = "failed"
	ProblemSetupFailed  = "setup-failed" // the worktree's setup, not the agent
	ActionInstall       = "install"
	ActionSignIn        = "sign-in"
	ActionSettings      = "settings"
	ActionRetry         = "retry"
)

var internalRE = regexp.MustCompile(`(?:orchestrator|agentmgr|services): (?:(?:start|resume) task [0-9a-f-]{8,}: )?`)

// Explain turns an errored task's stored reason into a Problem for the
// agent named display (whose npm package, when it has one, lets the app
// install it).
func Explain(display string, installable bool, reason string) Problem {
	switch {
	case strings.Contains(reason, agent.ErrBinaryNotFound.Error()):
		p := Problem{Kind: ProblemNotInstalled, Message: display + " is not installed."}
		if installable {
			p.Action, p.ActionLabel = ActionInstall, "Install "+display
		} else {
			p.Action, p.ActionLabel = ActionSettings, "Agent settings"
		}
		return p
	case LooksNotSignedIn(reason):
		return Problem{Kind: ProblemNotSignedIn, Message: display + " is not signed in.", Action: ActionSignIn, ActionLabel: "Sign in"}
	}
	msg := strings.TrimSpace(internalRE.ReplaceAllString(reason, ""))
	if msg == "" {
		msg = display + " stopped with an error."
	}
	return Problem{Kind: ProblemFailed, Message: msg, Action: ActionSettings, ActionLabel: "Agent settings"}
}

// signState is what the app knows of an agent's sign-in.
type signState int

const (
	signUnknown signState = iota
	signedOut
	signedIn
)

// signedIn tells whether spec's agent has credentials (HOME from the
// manager's options, else the user's home).
func (m *Manager) signedIn(ctx context.Context, spec Spec) signState {
	set, err := m.Settings(ctx, spec.Backend)
	if err != nil {
		return signUnknown
	}
	if m.opt.Home == "" {
		return signUnknown
	}
	in, known := SignedIn(spec, set, m.opt.Home)
	switch {
	case !known:
		return signUnknown
	case in:
		return signedIn
	}
	return signedOut
}

// SignedInState is "signed-in", "not-signed-in" or "" (cannot tell).
func (m *Manager) SignedInState(ctx context.Context, spec Spec) string {
	switch m.signedIn(ctx, spec) {
	case signedIn:
		return "signed-in"
	case signedOut:
		return "not-signed-in"
	}
	return ""
}

// lastKnownKey is the settings key of the Agents page's last known state.
const lastKnownKey = "agents.lastKnown"

// SaveLastKnown keeps the Agents page's last state (JSON, secrets already
// masked) so that the page paints at once next time.
func (m *Manager) SaveLastKnown(ctx context.Context, data string) error {
	if m.opt.Settings == nil {
		return nil
	}
	return m.opt.Settings.Set(ctx, lastKnownKey, data)
}

// LastKnown returns what SaveLastKnown kept ("" when nothing).
func (m *Manager) LastKnown(ctx context.Context) string {
	if m.opt.Settings == nil {
		return ""
	}
	v, _, _ := m.opt.Settings.Get(ctx, lastKnownKey)
	return v
}
