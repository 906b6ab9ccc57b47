package services

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
)

// EventAgentInstallProgress carries agentmgr.Progress while an agent is
// installed or uninstalled from the Agents page.
const EventAgentInstallProgress = "agents:install-progress"

// AgentService is the Agents page: every registered backend, whether its
// CLI is found and which version, a real health check, installing and
// uninstalling npm-distributed agents into the app's data dir, and the
// per-agent settings (secrets masked).
type AgentService struct {
	ctx   context.Context
	mgr   *agentmgr.Manager
	reg   *agent.Registry
	emit  Emitter
	specs func() []agentmgr.Spec
}

// NewAgentService returns the service. specs lists the known agent CLIs
// (agentmgr.Specs with the user-added ACP agents).
func NewAgentService(ctx context.Context, mgr *agentmgr.Manager, reg *agent.Registry, emit Emitter, specs func() []agentmgr.Spec) *AgentService {
	return &AgentService{ctx: ctx, mgr: mgr, reg: reg, emit: emit, specs: specs}
}

// AgentView is one row of the Agents page (agentmgr.View: the same
// fields, so a Go conversion maps it and stops compiling when they drift).
type AgentView struct {
	agentmgr.Status
	Registered   bool                   `json:"registered"`
	Capabilities agent.Capabilities     `json:"capabilities"`
	Notes        string                 `json:"notes,omitempty"`
	Settings     agentmgr.AgentSettings `json:"settings"` // secrets masked
	// SignIn is how the agent signs in; SignedIn is "signed-in",
	// "not-signed-in" or "" (the app cannot tell).
	SignIn   agentmgr.SignIn `json:"signIn"`
	SignedIn string          `json:"signedIn"`
}

func agentViews(vs []agentmgr.View) []AgentView {
	out := make([]AgentView, len(vs))
	for i, v := range vs {
		out[i] = AgentView(v)
	}
	return out
}

// InstallResult is the outcome of an install or uninstall: the npm log
// (shown on failure) and the agent's new state.
type InstallResult struct {
	OK    bool      `json:"ok"`
	Error string    `json:"error,omitempty"`
	Log   string    `json:"log"`
	Agent AgentView `json:"agent"`
}

func (s *AgentService) spec(backend string) (agentmgr.Spec, error) {
	if s.mgr == nil {
		return agentmgr.Spec{}, errors.New("the agent manager is not available")
	}
	for _, sp := range s.specs() {
		if string(sp.Backend) == backend {
			return sp, nil
		}
	}
	return agentmgr.Spec{}, &InputError{Field: "backend", Msg: fmt.Sprintf("unknown agent %q", backend), Err: agent.ErrUnknownBackend}
}

func (s *AgentService) view(sp agentmgr.Spec) AgentView {
	return AgentView(s.mgr.View(s.ctx, s.reg, sp))
}

// List returns every registered backend's agent, detected in parallel
// (each `--version` is bounded by a timeout).
func (s *AgentService) List() ([]AgentView, error) {
	if s.mgr == nil {
		return nil, errors.New("the agent manager is not available")
	}
	return agentViews(s.mgr.Views(s.ctx, s.reg, s.specs())), nil
}

// LastKnown returns the agents as the last List found them (settings
// masked), at once: the Agents page paints from it while List runs (it is
// also inlined into index.html, startup.go). Empty before the first List.
func (s *AgentService) LastKnown() ([]AgentView, error) {
	if s.mgr == nil {
		return []AgentView{}, nil
	}
	return agentViews(s.mgr.LastKnownViews(s.ctx)), nil
}

// Models lists the models backend offers, for the new-task form's picker
// (cached; Claude Code's initialize answer); empty when the agent cannot
// tell. Free text stays allowed.
func (s *AgentService) Models(backend string) ([]agentmgr.Model, error) {
	sp, err := s.spec(backend)
	if err != nil {
		return nil, err
	}
	out := s.mgr.Models(s.ctx, sp)
	if out == nil {
		out = []agentmgr.Model{}
	}
	return out, nil
}

// SecretsNote is shown on the Agents page when no system keyring runs
// (secrets are then kept in a file only the user can read); "" otherwise.
func (s *AgentService) SecretsNote() string {
	if s.mgr == nil {
		return ""
	}
	return s.mgr.SecretsNote()
}

// Get returns one agent.
func (s *AgentService) Get(backend string) (AgentView, error) {
	sp, err := s.spec(backend)
	if err != nil {
		return AgentView{}, err
	}
	return s.view(sp), nil
}

// Health starts the agent for real and reports whether it answered.
func (s *AgentService) Health(backend string) (agentmgr.Health, error) {
	sp, err := s.spec(backend)
	if err != nil {
		return agentmgr.Health{}, err
	}
	return s.mgr.Health(s.ctx, sp), nil
}

// LatestVersion returns the newest version on npm ("" with an error when
// npm cannot tell; the page shows nothing then).
func (s *AgentService) LatestVersion(backend string) (string, error) {
	sp, err := s.spec(backend)
	if err != nil {
		return "", err
	}
	return s.mgr.Latest(s.ctx, sp)
}

// Install installs version ("" = the pinned one, "latest") into the app's
// data dir, emitting "agents:install-progress" for every npm line. A failed
// npm run is not an error: the result carries OK=false and the log.
func (s *AgentService) Install(backend, version string) (InstallResult, error) {
	sp, err := s.spec(backend)
	if err != nil {
		return InstallResult{}, err
	}
	progress, done := s.progressSink()
	log, err := s.mgr.Install(s.ctx, sp, version, progress)
	done()
	return s.result(sp, log, err)
}

// Uninstall removes the app's own copy.
func (s *AgentService) Uninstall(backend string) (InstallResult, error) {
	sp, err := s.spec(backend)
	if err != nil {
		return InstallResult{}, err
	}
	log, err := s.mgr.Uninstall(s.ctx, sp)
	return s.result(sp, log, err)
}

// progressSink returns a progress callback that never blocks npm's output
// reader: events go out in order from their own goroutine (emitting from
// inside a bound call can wait on the frontend), and lines are dropped
// when the frontend falls far behind (the result carries the final state).
// done flushes and stops the goroutine.
func (s *AgentService) progressSink() (func(agentmgr.Progress), func()) {
	if s.emit == nil {
		return func(agentmgr.Progress) {}, func() {}
	}
	ch := make(chan agentmgr.Progress, 1024)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for p := range ch {
			s.emit.Emit(EventAgentInstallProgress, p)
		}
	}()
	send := func(p agentmgr.Progress) {
		select {
		case ch <- p:
		default:
		}
	}
	return send, func() {
		close(ch)
		select {
		case <-finished:
		case <-time.After(2 * time.Second):
		}
	}
}

func (s *AgentService) result(sp agentmgr.Spec, log string, err error) (InstallResult, error) {
	var ie *agentmgr.InstallError
	switch {
	case err == nil:
		return InstallResult{OK: true, Log: log, Agent: s.view(sp)}, nil
	case errors.As(err, &ie):
		return InstallResult{Error: err.Error(), Log: ie.Log, Agent: s.view(sp)}, nil
	default:
		return InstallResult{}, err
	}
}

// SaveSettings stores the agent's settings and returns them masked. Env
// values still equal to the mask keep their stored secret. Sessions
// started afterwards use them (a new binary path included).
func (s *AgentService) SaveSettings(backend string, set agentmgr.AgentSettings) (AgentView, error) {
	sp, err := s.spec(backend)
	if err != nil {
		return AgentView{}, err
	}
	if err := s.mgr.SetSettings(s.ctx, sp.Backend, set); err != nil {
		return AgentView{}, &InputError{Field: "settings", Msg: err.Error(), Err: err}
	}
	return s.view(sp), nil
}
