// Package tasks holds the rules of a new task: what it runs (its backend,
// model and interaction mode, decided once from what is asked, the
// project's defaults and the agent's own settings, then stored) and its
// name; the backend new projects start with; and a task's end in order
// (Ender: its agent stopped, its shells closed, its worktree removed, then
// its row; a project's tasks when the project is removed); and what an
// errored task sends again (Retry). services.TaskService, ProjectService
// and SessionService.Retry are its faces. Invalid input is an inputerr.
package tasks

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/store"
)

// New is what a new task asks for; empty fields take the defaults.
type New struct {
	ProjectID string
	Prompt    string
	Name      string // "" = the prompt's first line
	Backend   string // "" = the project's default backend
	Model     string // "" = the project's default model, else the agent's
	// InteractionMode "" = the agent's default mode (Agents page), else ask.
	InteractionMode string
}

// Defaulter is a backend that carries the user's default model and mode
// for it (agentmgr.Configured does).
type Defaulter interface {
	Defaults(ctx context.Context) (model string, mode agent.InteractionMode)
}

// Create stores a task in status "created" (it does not start it), with
// its backend, model and mode decided here once. auto reports that its
// name was made from the prompt (a one-shot title may replace it).
func Create(ctx context.Context, db *store.DB, reg *agent.Registry, in New) (t store.Task, auto bool, err error) {
	prompt := strings.TrimSpace(in.Prompt)
	if prompt == "" {
		return store.Task{}, false, inputerr.New("prompt", nil, "prompt is empty")
	}
	p, err := store.GetProject(ctx, db.R, in.ProjectID)
	if errors.Is(err, store.ErrNotFound) {
		return store.Task{}, false, inputerr.New("projectId", err, "project not found: %s", in.ProjectID)
	}
	if err != nil {
		return store.Task{}, false, err
	}
	run, err := decide(ctx, reg, p, in)
	if err != nil {
		return store.Task{}, false, err
	}
	run.ProjectID, run.Prompt, run.Name = p.ID, prompt, strings.TrimSpace(in.Name)
	if auto = run.Name == ""; auto {
		run.Name = NameFromPrompt(prompt)
	}
	t, err = store.CreateTask(ctx, db.W, run)
	return t, auto, err
}

// decide is what the task runs: in's choices, else the project's, else
// the agent's own settings (model after the project's, mode before "ask").
func decide(ctx context.Context, reg *agent.Registry, p store.Project, in New) (store.NewTask, error) {
	backend := p.DefaultAgentBackend
	if strings.TrimSpace(in.Backend) != "" {
		backend = agent.BackendType(strings.TrimSpace(in.Backend))
	}
	b, err := CheckBackend(reg, string(backend))
	if err != nil {
		return store.NewTask{}, err
	}
	be, beErr := reg.Get(b)
	var agentModel string
	var agentMode agent.InteractionMode
	if d, ok := be.(Defaulter); ok && beErr == nil {
		agentModel, agentMode = d.Defaults(ctx)
	}
	mode, err := decideMode(be, beErr, in.InteractionMode, agentMode)
	if err != nil {
		return store.NewTask{}, err
	}
	model := firstOf(strings.TrimSpace(in.Model), p.DefaultModel, agentModel)
	if err := agent.ValidModel(model); err != nil {
		return store.NewTask{}, inputerr.New("model", err, "%v", err)
	}
	return store.NewTask{AgentBackend: b, Model: model, InteractionMode: mode}, nil
}

// decideMode is the asked mode, else the agent's, else ask; it must be
// one the backend supports.
func decideMode(be agent.Backend, beErr error, asked string, agentMode agent.InteractionMode) (agent.InteractionMode, error) {
	mode := agent.InteractionMode(firstOf(strings.TrimSpace(asked), string(agentMode), string(agent.ModeAsk)))
	if !mode.Valid() {
		return "", inputerr.New("interactionMode", nil, "invalid interaction mode %q (one of: ask, accept-edits, plan, bypass)", asked)
	}
	if beErr == nil {
		info := be.Info()
		if ms := info.Capabilities.Modes; len(ms) > 0 && !slices.Contains(ms, mode) {
			return "", inputerr.New("interactionMode", agent.ErrUnsupported, "%s does not support the %q interaction mode", info.DisplayName, mode)
		}
	}
	return mode, nil
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// NameFromPrompt is the prompt's first line, cut to 60 characters.
func NameFromPrompt(prompt string) string {
	line, _, _ := strings.Cut(prompt, "\n")
	line = strings.TrimSpace(line)
	const max = 60
	if utf8.RuneCountInString(line) <= max {
		return line
	}
	r := []rune(line)
	return strings.TrimSpace(string(r[:max-1])) + "…"
}

// CheckBackend validates a backend name against the registry.
func CheckBackend(reg *agent.Registry, name string) (agent.BackendType, error) {
	b := agent.BackendType(strings.TrimSpace(name))
	if b == "" {
		return "", inputerr.New("backend", nil, "no agent backend given")
	}
	if !reg.Has(b) {
		return "", inputerr.New("backend", &agent.UnknownBackendError{Name: b},
			"unknown agent backend %q (known: %s)", b, strings.Join(agent.SortedNames(reg.List()), ", "))
	}
	return b, nil
}

// DefaultBackend is what new projects start with: the global default
// (store.SettingDefaultBackend) when set and still registered, else the
// first registered backend.
func DefaultBackend(ctx context.Context, db *store.DB, reg *agent.Registry) (agent.BackendType, error) {
	v, ok, err := store.SettingValue(ctx, db.R, store.SettingDefaultBackend)
	if err != nil {
		return "", err
	}
	if ok && reg.Has(agent.BackendType(v)) {
		return agent.BackendType(v), nil
	}
	if infos := reg.List(); len(infos) > 0 {
		return infos[0].Name, nil
	}
	return "", errors.New("no agent backend is registered")
}
