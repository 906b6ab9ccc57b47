package remote

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

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

	mu   sync.Mutex
	gits map[string]*gitx.Git // per host: one Git, so its per-repository locks hold
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
	p.mu.Lock()
	defer p.mu.Unlock()
	if g, ok := p.gits[ph.Host]; ok {
		return g, true
	}
	c, err := p.Pool.Client(ph.Host)
	if err != nil {
		return failing(err), true
	}
	g, err := NewGit(c, p.Env)
	if err != nil {
		return failing(err), true
	}
	if p.gits == nil {
		p.gits = map[string]*gitx.Git{}
	}
	p.gits[ph.Host] = g
	return g, true
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
