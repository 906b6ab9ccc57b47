// Package remote runs Jean-Claude's work on other machines over SSH.
//
// Every connection goes through the system `ssh` client (exec, never a
// shell on our side, its own process group), so the user's ~/.ssh/config,
// keys, ssh-agent, known_hosts and ProxyJump all apply and no credential is
// ever copied. One master connection per host (`ssh -M -N`, a child of the
// app that ends with it) listens on a ControlMaster socket under the app's
// data directory, and every command (git, health checks, the binary
// deploy, the relay bridge) is multiplexed over it; when it drops, the next
// command starts a new one.
//
// No user value ever becomes an ssh option: host names are validated
// (ValidHost) and passed after "--"; the remote command is one string for
// the remote user's shell built only from POSIX single-quoted words
// (Quote), so a path or branch with spaces, quotes or "$(…)" stays one
// literal argument there.
package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/gitx"
)

// Errors callers branch on.
var (
	// ErrInvalidHost: a host name that could be read as an option or is not
	// a plain ssh destination.
	ErrInvalidHost = errors.New("invalid host name")
	// ErrUnreachable: ssh itself failed (exit status 255): the host is down,
	// refused the key, or its host key is unknown.
	ErrUnreachable = gitx.ErrHostUnreachable
	// ErrSSHNotFound: no ssh client on PATH.
	ErrSSHNotFound = errors.New("ssh client not found")
	// ErrPoolClosed: the app is closing; no new connection is made.
	ErrPoolClosed = errors.New("ssh connections closed")
)

// ValidHost accepts what a user types as an ssh destination: a Host alias
// from ~/.ssh/config, a host name or address, optionally user@ in front.
// It refuses anything starting with '-', whitespace, control characters and
// shell or ssh-token characters (%, $, quotes, ...).
func ValidHost(name string) error {
	if name == "" || len(name) > 255 {
		return fmt.Errorf("%w: %q", ErrInvalidHost, name)
	}
	if name[0] == '-' {
		return fmt.Errorf("%w: %q starts with '-'", ErrInvalidHost, name)
	}
	user, host, hasUser := strings.Cut(name, "@")
	if !hasUser {
		host, user = user, ""
	} else if user == "" || host == "" || user[0] == '-' || host[0] == '-' {
		return fmt.Errorf("%w: %q", ErrInvalidHost, name)
	}
	for _, part := range []string{user, host} {
		for _, r := range part {
			ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
				r == '.' || r == '-' || r == '_' || r == ':'
			if !ok {
				return fmt.Errorf("%w: %q contains %q", ErrInvalidHost, name, r)
			}
		}
	}
	return nil
}

// Quote returns s as one POSIX shell word ('…' with embedded quotes
// escaped), for the remote user's shell, which ssh always runs.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			strings.ContainsRune("/._-=+:,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command joins argv into the remote command line, each word quoted.
func Command(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// Options configure a Pool.
type Options struct {
	// SSH is the ssh client; "" looks up "ssh" on PATH.
	SSH string
	// ControlDir holds the ControlMaster sockets (the app's data dir/ssh);
	// created with mode 0700. Keep it short: a unix socket path is at most
	// 104–108 bytes.
	ControlDir string
	// ConfigFile, when set, replaces ~/.ssh/config (-F). Tests only: the
	// app leaves it empty so the user's own configuration applies.
	ConfigFile string
	// ConnectTimeout bounds connection setup (default 15s).
	ConnectTimeout time.Duration
}

// Pool hands out one Client per host; all share the options.
type Pool struct {
	opt Options
	bin string

	mu      sync.Mutex
	clients map[string]*Client
	closed  bool // Close was called: relays are not dialled any more
}

// NewPool finds ssh and prepares the control directory.
func NewPool(opt Options) (*Pool, error) {
	bin := opt.SSH
	if bin == "" {
		bin = "ssh"
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSSHNotFound, err)
	}
	if opt.ControlDir == "" {
		return nil, errors.New("remote: no control directory")
	}
	if err := os.MkdirAll(opt.ControlDir, 0o700); err != nil {
		return nil, fmt.Errorf("remote: control directory: %w", err)
	}
	if err := os.Chmod(opt.ControlDir, 0o700); err != nil {
		return nil, fmt.Errorf("remote: control directory: %w", err)
	}
	if opt.ConnectTimeout <= 0 {
		opt.ConnectTimeout = 15 * time.Second
	}
	return &Pool{opt: opt, bin: p, clients: map[string]*Client{}}, nil
}

// Client returns the client of host (validated).
func (p *Pool) Client(host string) (*Client, error) {
	if err := ValidHost(host); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.clients[host]
	if !ok {
		c = &Client{pool: p, host: host}
		p.clients[host] = c
	}
	return c, nil
}

// Close ends every master connection the pool started; relays are not
// dialled any more (a link reconnecting gives up with ErrPoolClosed: a
// stop it queued stays recorded for the next start).
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	cs := make([]*Client, 0, len(p.clients))
	for _, c := range p.clients {
		cs = append(cs, c)
	}
	p.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
}

// Client runs commands on one host over the shared master connection.
type Client struct {
	pool *Pool
	host string

	mu     sync.Mutex
	master *exec.Cmd
	done   chan struct{} // closed when master exits
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Host is the destination this client connects to.
func (c *Client) Host() string { return c.host }

// baseArgs are the options of every ssh call: only fixed values and paths
// the app chose, never a user value.
func (c *Client) baseArgs() []string {
	o := c.pool.opt
	args := []string{
		"-o", "BatchMode=yes", // never prompt: no terminal to answer
		"-o", "ControlPath=" + filepath.Join(o.ControlDir, "%C"),
		"-o", fmt.Sprintf("ConnectTimeout=%d", int(o.ConnectTimeout.Seconds())),
		"-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3",
		"-T", // no pseudo-terminal: bytes pass unchanged
	}
	if o.ConfigFile != "" {
		args = append(args, "-F", o.ConfigFile)
	}
	return args
}

// Cmd is an exec.Cmd running argv on the host (quoted for the remote
// shell), in its own local process group; cancelling ctx ends the group.
func (c *Client) Cmd(ctx context.Context, argv ...string) *exec.Cmd {
	_ = c.ensureMaster(ctx) // when it cannot start, the command says why
	args := append(c.baseArgs(), "-o", "ControlMaster=no", "--", c.host, Command(argv))
	cmd := exec.CommandContext(ctx, c.pool.bin, args...)
	ownGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Result is the outcome of Run.
type Result struct {
	Stdout, Stderr []byte
	// Code is the remote command's exit status (-1 if it did not run).
	Code int
}

// Run runs argv on the host with stdin and collects its output. A non-zero
// exit of the remote command is returned in Result.Code with a nil error;
// ssh's own failure (status 255) is ErrUnreachable.
func (c *Client) Run(ctx context.Context, stdin io.Reader, argv ...string) (Result, error) {
	cmd := c.Cmd(ctx, argv...)
	var out, errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	err := cmd.Run()
	res := Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	return res, c.classify(ctx, err, &res)
}

func (c *Client) classify(ctx context.Context, err error, res *Result) error {
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if ctx.Err() == nil && errors.As(err, &ee) {
		res.Code = ee.ExitCode()
		if res.Code != 255 {
			return nil
		}
		return fmt.Errorf("%w: %s: %s", ErrUnreachable, c.host, lastLine(res.Stderr))
	}
	res.Code = -1
	if ctx.Err() != nil {
		return fmt.Errorf("remote: %s: %w", c.host, ctx.Err())
	}
	return fmt.Errorf("remote: %s: %w", c.host, err)
}

// Output runs argv and returns stdout; a non-zero exit is an error
// carrying the remote stderr.
func (c *Client) Output(ctx context.Context, argv ...string) ([]byte, error) {
	res, err := c.Run(ctx, nil, argv...)
	if err != nil {
		return nil, err
	}
	if res.Code != 0 {
		return res.Stdout, fmt.Errorf("remote: %s: %s exited %d: %s", c.host, argv[0], res.Code, firstLine(res.Stderr))
	}
	return res.Stdout, nil
}

// Check asks the master connection whether it is up (ssh -O check).
func (c *Client) Check(ctx context.Context) bool {
	args := append(c.baseArgs(), "-O", "check", "--", c.host)
	cmd := exec.CommandContext(ctx, c.pool.bin, args...)
	ownGroup(cmd)
	return cmd.Run() == nil
}

// Close ends the master connection; commands still running over it are
// cut.
func (c *Client) Close() {
	c.mu.Lock()
	m, done := c.master, c.done
	c.master, c.done = nil, nil
	c.mu.Unlock()
	if m == nil {
		return
	}
	_ = syscall.Kill(-m.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-m.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// lastLine is ssh's own fatal error: it comes last, after warnings (such
// as a dead master's "Control socket connect(…)", after which ssh connects
// by itself).
func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[i+1:])
	}
	return s
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// ownGroup puts the command in its own process group; cancelling the
// context terminates the group.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
}

// ControlDirFor is the folder for ControlMaster sockets under the app's
// data directory, or a short per-user folder in /tmp when that path would
// be too long for a unix socket (<dir>/<40-hex %C> must fit in ~104 bytes).
func ControlDirFor(dataDir string) string {
	dir := filepath.Join(dataDir, "ssh")
	if len(dir)+42 <= 100 {
		return dir
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("jean-claude-ssh-%d", os.Getuid()))
}
