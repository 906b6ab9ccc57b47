package workspace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/wtsetup"
)

// SetupSettings are a project's worktree setup settings (issue 18), stored
// as key/value rows (store.ProjectSettings).
type SetupSettings struct {
	ProjectID string
	// CopyGlobs: newline-separated globs of files copied from the project
	// folder into each new worktree (".env*", "config/**/*.local"; "**"
	// spans folders; "#" starts a comment).
	CopyGlobs string
	// SetupCommand runs in each new worktree after the copy ("" = none).
	SetupCommand string
	// SetupRequired: the agent starts only after the setup succeeded.
	SetupRequired bool
	// SetupUsesShell says (read-only) whether SetupCommand runs under
	// /bin/sh (it uses shell syntax) or directly.
	SetupUsesShell bool
}

// projectSettingKeys maps the settings' string fields to their stored
// keys; a new per-project text setting is one line here.
var projectSettingKeys = []struct {
	key   string
	field func(*SetupSettings) *string
}{
	{store.ProjectCopyGlobs, func(s *SetupSettings) *string { return &s.CopyGlobs }},
	{store.ProjectSetupCommand, func(s *SetupSettings) *string { return &s.SetupCommand }},
}

// worktreeSetup is Manager' part that makes a new worktree ready.
type worktreeSetup struct {
	mu         sync.Mutex
	sink       SetupSink
	closeTerms func(ctx context.Context, taskID string) error
}

// SetTerminals sets how a task's shells are killed when the task is
// deleted (CloseTaskTerminals).
func (w *Manager) SetTerminals(closeTerms func(ctx context.Context, taskID string) error) {
	w.setup.mu.Lock()
	w.setup.closeTerms = closeTerms
	w.setup.mu.Unlock()
}

// CloseTaskTerminals kills task taskID's shells (before its worktree is
// removed, so nothing runs in a folder about to vanish).
func (w *Manager) CloseTaskTerminals(ctx context.Context, taskID string) error {
	w.setup.mu.Lock()
	f := w.setup.closeTerms
	w.setup.mu.Unlock()
	if f == nil {
		return nil
	}
	return f(ctx, taskID)
}

// FrameWriter stores one raw frame into a task (orchestrator.FrameSink).
type FrameWriter interface {
	Write(ctx context.Context, frame []byte) error
}

// SetupSink opens where a task's setup frames go.
type SetupSink func(ctx context.Context, taskID string) (FrameWriter, error)

// SetSetupSink sets where setup output is stored (the orchestrator, set
// once it exists). Without one, setups run but their output is dropped.
func (w *Manager) SetSetupSink(s SetupSink) {
	w.setup.mu.Lock()
	w.setup.sink = s
	w.setup.mu.Unlock()
}

// SetupSettings returns a project's setup settings.
func (w *Manager) SetupSettings(ctx context.Context, projectID string) (SetupSettings, error) {
	if _, err := store.GetProjectGit(ctx, w.db.R, projectID); err != nil {
		return SetupSettings{}, notFound("project", projectID, err)
	}
	all, err := store.GetProjectSettings(ctx, w.db.R, projectID)
	if err != nil {
		return SetupSettings{}, err
	}
	out := SetupSettings{ProjectID: projectID, SetupRequired: all[store.ProjectSetupRequired] == "1"}
	for _, k := range projectSettingKeys {
		*k.field(&out) = all[k.key]
	}
	if c, err := wtsetup.ParseCommand(out.SetupCommand); err == nil {
		out.SetupUsesShell = c.Shell
	}
	return out, nil
}

// SetSetupSettings validates (globs, command syntax) and stores a
// project's setup settings.
func (w *Manager) SetSetupSettings(ctx context.Context, projectID string, in SetupSettings) (SetupSettings, error) {
	if _, err := store.GetProjectGit(ctx, w.db.R, projectID); err != nil {
		return SetupSettings{}, notFound("project", projectID, err)
	}
	in.CopyGlobs = strings.TrimSpace(strings.ReplaceAll(in.CopyGlobs, "\r\n", "\n"))
	in.SetupCommand = strings.TrimSpace(in.SetupCommand)
	if _, err := wtsetup.ParseGlobs(in.CopyGlobs); err != nil {
		return SetupSettings{}, invalid("copyGlobs", err, "%v", err)
	}
	if in.SetupCommand != "" {
		if _, err := wtsetup.ParseCommand(in.SetupCommand); err != nil {
			return SetupSettings{}, invalid("setupCommand", err, "%v", err)
		}
	}
	values := map[string]string{store.ProjectSetupRequired: ""}
	if in.SetupRequired {
		values[store.ProjectSetupRequired] = "1"
	}
	for _, k := range projectSettingKeys {
		values[k.key] = *k.field(&in)
	}
	err := w.db.Tx(ctx, func(tx *sql.Tx) error { return store.SetProjectSettings(ctx, tx, projectID, values) })
	if err != nil {
		return SetupSettings{}, err
	}
	return w.SetupSettings(ctx, projectID)
}

// ErrSetupFailed: the worktree setup failed and the project wants it to
// succeed before the agent starts.
var ErrSetupFailed = errors.New("worktree setup failed")

// SetupTimeout bounds one setup run.
const SetupTimeout = 30 * time.Minute

// SetUp makes task t's new worktree at cwd ready, once: it copies the
// project's globs and runs its setup command, the output streamed into the
// task. A setup that succeeded (or has nothing to do) is not run again;
// one that failed runs again at the next start. It returns an error
// wrapping ErrSetupFailed when the setup failed and the project requires
// it, or when the output could not be stored.
func (w *Manager) SetUp(ctx context.Context, t store.TaskRun, cwd string) error {
	status, err := store.TaskSetupStatus(ctx, w.db.R, t.ID)
	if err != nil || status == store.SetupOK {
		return err
	}
	set, err := w.SetupSettings(ctx, t.ProjectID)
	if err != nil {
		return err
	}
	if strings.TrimSpace(set.CopyGlobs) == "" && set.SetupCommand == "" {
		return store.SetTaskSetupStatus(ctx, w.db.W, t.ID, store.SetupOK)
	}
	if err := store.SetTaskSetupStatus(ctx, w.db.W, t.ID, store.SetupRunning); err != nil {
		return err
	}
	res, err := w.runSetup(ctx, t, cwd, set)
	final := store.SetupOK
	if err != nil || !res.OK() {
		final = store.SetupFailed
	}
	if serr := store.SetTaskSetupStatus(context.WithoutCancel(ctx), w.db.W, t.ID, final); serr != nil && err == nil {
		err = serr
	}
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", ErrSetupFailed, err)
	case !res.OK() && set.SetupRequired:
		return fmt.Errorf("%w (%s); the agent was not started: fix the setup in the project settings (or the worktree in the task's Shell), then Retry", ErrSetupFailed, describe(res))
	}
	return nil
}

func describe(r wtsetup.Result) string {
	if r.Error != "" {
		return r.Error
	}
	return fmt.Sprintf("exit code %d", r.Code)
}

// runSetup copies, runs and streams one setup; err is a store error (the
// output could not be kept) or a bad setting.
func (w *Manager) runSetup(ctx context.Context, t store.TaskRun, cwd string, set SetupSettings) (wtsetup.Result, error) {
	out, err := w.openSink(ctx, t.ID)
	if err != nil {
		return wtsetup.Result{}, err
	}
	id, began := "setup-"+uuid.NewString(), time.Now()
	fw := newFrameBatcher(ctx, out, id)
	defer fw.close() // idempotent: stops the ticker on every path
	start := wtsetup.Frame{Type: "start", ID: id}
	var res wtsetup.Result
	globs, gerr := wtsetup.ParseGlobs(set.CopyGlobs)
	var copyRes wtsetup.CopyResult
	place := w.setupPlace(ctx, t.ProjectID)
	if gerr == nil {
		copyRes, gerr = place.CopyFiles(ctx, t.ProjectPath, cwd, globs)
	}
	start.Copy = &copyRes
	var cmd wtsetup.Command
	if set.SetupCommand != "" {
		cmd, err = wtsetup.ParseCommand(set.SetupCommand)
		if err != nil {
			return wtsetup.Result{}, err
		}
		start.Command = &cmd
	}
	if err := fw.frame(start); err != nil {
		return wtsetup.Result{}, err
	}
	switch {
	case gerr != nil:
		res = wtsetup.Result{Code: -1, Error: "copying files: " + gerr.Error()}
	case set.SetupCommand != "":
		rctx, cancel := context.WithTimeout(ctx, SetupTimeout)
		env := []string{"JEAN_CLAUDE_TASK_ID=" + t.ID, "JEAN_CLAUDE_PROJECT_DIR=" + t.ProjectPath}
		res = place.Run(rctx, cmd, cwd, env, fw)
		cancel()
	}
	if err := fw.close(); err != nil {
		return res, err
	}
	end := wtsetup.Frame{Type: "end", ID: id, Result: &res, Required: set.SetupRequired, DurationMs: time.Since(began).Milliseconds()}
	if err := fw.frame(end); err != nil {
		return res, err
	}
	return res, nil
}

// RemoteSetup is the optional ability of a RemoteGit resolver to run a
// remote project's setup on its host.
type RemoteSetup interface {
	SetupFor(ctx context.Context, projectID string) (p wtsetup.Place, ok bool)
}

// setupPlace is where project projectID's setup runs: its host for a
// remote project (never this machine: without a way to run it there, the
// setup fails saying so), else here.
func (w *Manager) setupPlace(ctx context.Context, projectID string) wtsetup.Place {
	if w.remote == nil {
		return wtsetup.Local{}
	}
	if rs, ok := w.remote.(RemoteSetup); ok {
		if p, ok := rs.SetupFor(ctx, projectID); ok {
			return p
		}
		return wtsetup.Local{}
	}
	if _, remote := w.remote.GitFor(ctx, projectID); remote {
		return noSetupPlace{}
	}
	return wtsetup.Local{}
}

// errNoRemoteSetup: a remote project's setup cannot run on its host.
var errNoRemoteSetup = errors.New("the worktree setup cannot run on this project's host")

type noSetupPlace struct{}

func (noSetupPlace) CopyFiles(context.Context, string, string, []string) (wtsetup.CopyResult, error) {
	return wtsetup.CopyResult{Copied: []string{}}, errNoRemoteSetup
}

func (noSetupPlace) Run(context.Context, wtsetup.Command, string, []string, io.Writer) wtsetup.Result {
	return wtsetup.Result{Code: -1, Error: errNoRemoteSetup.Error()}
}

func (w *Manager) openSink(ctx context.Context, taskID string) (FrameWriter, error) {
	w.setup.mu.Lock()
	sink := w.setup.sink
	w.setup.mu.Unlock()
	if sink == nil {
		return discardFrames{}, nil
	}
	return sink(ctx, taskID)
}

type discardFrames struct{}

func (discardFrames) Write(context.Context, []byte) error { return nil }
