package agentmgr

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// appVersion is the version of the app's own copy of spec ("" when none).
func (m *Manager) appVersion(spec Spec) string {
	if spec.Package == "" || m.AgentsDir() == "" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(m.AgentsDir(), "node_modules", filepath.FromSlash(spec.Package), "package.json"))
	if err != nil {
		return ""
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &p) != nil {
		return ""
	}
	return p.Version
}

var versionRE = regexp.MustCompile(`^(latest|next|[0-9]+\.[0-9]+\.[0-9]+[0-9A-Za-z.+-]*)$`)

// Progress is one step of an install, for the progress bar.
type Progress struct {
	Backend agent.BackendType `json:"backend"`
	Line    string            `json:"line"`
	// Fetched counts the packages npm downloaded so far; Done is set on
	// the last event, with Error when it failed.
	Fetched int    `json:"fetched"`
	Done    bool   `json:"done"`
	Error   string `json:"error,omitempty"`
}

// InstallError is a failed npm run, with its whole output.
type InstallError struct {
	Err error
	Log string
}

func (e *InstallError) Error() string { return e.Err.Error() }
func (e *InstallError) Unwrap() error { return e.Err }

// Install runs `npm install --prefix <data dir>/agents <package>@<version>`
// (version "" means the pinned one, "latest" the newest), calling progress
// for every output line. It returns npm's output; a failure is an
// *InstallError carrying it.
func (m *Manager) Install(ctx context.Context, spec Spec, version string, progress func(Progress)) (string, error) {
	if version == "" {
		version = spec.Pinned
	}
	if version == "" {
		version = "latest"
	}
	if !versionRE.MatchString(version) {
		return "", fmt.Errorf("agentmgr: bad version %q", version)
	}
	return m.npm(ctx, spec, progress, "install", "--prefix", m.AgentsDir(), "--no-audit", "--no-fund",
		"--loglevel=http", spec.Package+"@"+version)
}

// Uninstall removes the app's own copy of spec.
func (m *Manager) Uninstall(ctx context.Context, spec Spec) (string, error) {
	return m.npm(ctx, spec, nil, "uninstall", "--prefix", m.AgentsDir(), "--no-audit", "--no-fund", spec.Package)
}

func (m *Manager) npm(ctx context.Context, spec Spec, progress func(Progress), args ...string) (string, error) {
	if spec.Package == "" {
		return "", fmt.Errorf("%s: %w", spec.DisplayName, ErrNotOnNPM)
	}
	if m.AgentsDir() == "" {
		return "", ErrNoDataDir
	}
	m.mu.Lock()
	if m.install[spec.Backend] {
		m.mu.Unlock()
		return "", fmt.Errorf("%s: %w", spec.DisplayName, ErrBusy)
	}
	m.install[spec.Backend] = true
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.install, spec.Backend)
		m.mu.Unlock()
	}()
	if progress == nil {
		progress = func(Progress) {}
	}
	if err := os.MkdirAll(m.AgentsDir(), 0o755); err != nil {
		return "", fmt.Errorf("agentmgr: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := command(ctx, m.opt.NPM, args, nil, m.AgentsDir())
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var log strings.Builder
	fetched := 0
	var wg sync.WaitGroup
	wg.Go(func() {
		for line, err := range agent.Lines(pr) {
			if err != nil {
				break
			}
			l := string(line)
			log.WriteString(l + "\n")
			if strings.Contains(l, "http fetch") {
				fetched++
			}
			progress(Progress{Backend: spec.Backend, Line: l, Fetched: fetched})
		}
		_, _ = io.Copy(io.Discard, pr)
	})
	m.opt.Logger.Info("agentmgr: npm", "agent", spec.Backend, "args", args)
	err := cmd.Start()
	if err == nil {
		err = cmd.Wait()
	}
	pw.Close()
	wg.Wait()
	_ = proc.KillGroup(cmd, syscall.SIGKILL)
	m.opt.Logger.Info("agentmgr: npm done", "agent", spec.Backend, "err", err)
	out := log.String()
	if err != nil {
		err = &InstallError{Err: fmt.Errorf("npm %s %s failed: %w", args[0], spec.Package, err), Log: out}
		progress(Progress{Backend: spec.Backend, Fetched: fetched, Done: true, Error: err.Error()})
		return out, err
	}
	progress(Progress{Backend: spec.Backend, Fetched: fetched, Done: true})
	return out, nil
}

// Latest returns the newest version of spec's npm package (`npm view
// <pkg> version`), cached; errors are cached too, for a shorter while.
func (m *Manager) Latest(ctx context.Context, spec Spec) (string, error) {
	if spec.Package == "" {
		return "", ErrNotOnNPM
	}
	m.mu.Lock()
	e, ok := m.latest[spec.Package]
	m.mu.Unlock()
	ttl := m.opt.LatestTTL
	if e.err != nil {
		ttl = min(ttl, 5*time.Minute)
	}
	if ok && time.Since(e.at) < ttl {
		return e.version, e.err
	}
	cctx, cancel := context.WithTimeout(ctx, m.opt.LatestTimeout)
	defer cancel()
	out, err := command(cctx, m.opt.NPM, []string{"view", spec.Package, "version"}, nil, "").Output()
	v := strings.TrimSpace(string(out))
	if err == nil && !versionRE.MatchString(v) {
		err = fmt.Errorf("npm view %s: unexpected answer %.80q", spec.Package, v)
	} else if err != nil {
		err = fmt.Errorf("npm view %s: %w", spec.Package, err)
	}
	if err != nil {
		v = ""
	}
	m.mu.Lock()
	m.latest[spec.Package] = latestEntry{version: v, err: err, at: time.Now()}
	m.mu.Unlock()
	return v, err
}
