package remote

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/store"
)

// ProjectGits resolves the git of a project that lives on a host
// (services.RemoteGit): its calls run on the host over the pool's
// connection.
type ProjectGits struct {
	Pool *Pool
	DB   *store.DB
	// Env is added to every git call (tests: identity, config).
	Env []string

	// RetryMin, RetryMax bound the waits between two rounds of the
	// pending worktree removals (5 s doubling to 5 min; removals.go).
	RetryMin, RetryMax time.Duration
	// Log says when a deleted task's worktree could not be removed.
	Log *slog.Logger

	mu   sync.Mutex
	gits map[string]*gitx.Git // per host: one Git, so its per-repository locks hold
	kick chan struct{}        // a removal was deferred (cap 1)
}

// GitFor implements services.RemoteGit: ok false for a local project.
func (p *ProjectGits) GitFor(ctx context.Context, projectID string) (*gitx.Git, bool) {
	ph, ok, err := store.GetProjectHost(ctx, p.DB.R, projectID)
	if err != nil {
		return failing(err), true
	}
	if !ok {
		return nil, false
	}
	return p.gitOn(ph.Host), true
}

// gitOn is the Git of host (one per host).
func (p *ProjectGits) gitOn(host string) *gitx.Git {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g, ok := p.gits[host]; ok {
		return g
	}
	c, err := p.Pool.Client(host)
	if err != nil {
		return failing(err)
	}
	g, err := NewGit(c, p.Env)
	if err != nil {
		return failing(err)
	}
	if p.gits == nil {
		p.gits = map[string]*gitx.Git{}
	}
	p.gits[host] = g
	return g
}

// failing is a Git whose every call fails with err (the host's project
// cannot be reached or resolved; never fall back to local git).
func failing(err error) *gitx.Git {
	g, _ := gitx.New(gitx.Options{Runner: failRunner{err}})
	return g
}

type failRunner struct{ err error }

func (f failRunner) Git(context.Context, string, []string, []string, io.Reader, io.Writer, io.Writer) error {
	return f.err
}
func (f failRunner) Stat(context.Context, string) (bool, bool, error) { return false, false, f.err }
func (f failRunner) MkdirAll(context.Context, string) error           { return f.err }
func (f failRunner) Canonical(_ context.Context, p string) string     { return p }
func (f failRunner) TempDir(context.Context) (string, error)          { return "", f.err }
func (f failRunner) RemoveAll(context.Context, string) error          { return f.err }
func (f failRunner) CopyFile(context.Context, string, string) error   { return f.err }

// npmSpec is name@version of an npm package (scoped or not).
var npmSpec = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*@[0-9A-Za-z][0-9A-Za-z.+-]*$`)

// installScript installs one npm package for the remote user under
// ~/.local (bin in ~/.local/bin); "--" ends npm's options.
const installScript = `command -v npm >/dev/null 2>&1 || { echo "npm is not installed on this host" >&2; exit 127; }
exec npm install --global --no-audit --no-fund --loglevel=error --prefix "$HOME/.local" -- "$1"`

// InstallNPM installs pkg@version on the host with its npm, for the
// remote user (no root). The spec is checked, then passed as one word.
func (c *Client) InstallNPM(ctx context.Context, spec string) (string, error) {
	if !npmSpec.MatchString(spec) {
		return "", fmt.Errorf("remote: %q is not an npm package@version", spec)
	}
	res, err := c.Run(ctx, nil, "sh", "-c", installScript, "jc", spec)
	if err != nil {
		return "", err
	}
	out := strings.TrimSpace(string(res.Stdout) + "\n" + string(res.Stderr))
	if res.Code != 0 {
		return out, fmt.Errorf("remote: npm install %s on %s: exit %d: %s", spec, c.host, res.Code, firstLine(res.Stderr))
	}
	return out, nil
}
