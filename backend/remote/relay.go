package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/relay"
)

// RelayDir is where relays keep their files on a host, next to the binary
// cache of Deploy (~/.cache/jean-claude/relays).
func RelayDir(d Deployed) string { return path.Join(path.Dir(path.Dir(d.Path)), "relays") }

// remoteBaseEnv are the host's own variables an agent started there gets
// (the relay gives its agent exactly Spec.Env).
var remoteBaseEnv = []string{"HOME", "PATH", "USER", "LOGNAME", "SHELL", "LANG", "TMPDIR"}

// launchScript starts the relay in its own session on the host, its stderr
// in <dir>/<id>.log; the spec (with the agent's environment and secrets)
// arrives on stdin through the connection and is never written to disk.
//
// The shell reads the whole spec before it starts the relay, and hands it on
// through a pipe of its own (printf is a builtin: the spec is in no process's
// arguments). sshd closes the session's stdin when the shell's process ends:
// a relay reading the session's stdin itself lost whatever had not arrived
// by then ("spec: unexpected EOF" for a spec of a few ssh packets).
const launchScript = `umask 077; mkdir -p "$2" || exit 1; PATH="$HOME/.local/bin:$PATH"; export PATH
spec=$(cat) || exit 1
printf '%s\n' "$spec" | setsid "$1" relay 2>>"$2/$3.log" &`

// LaunchRelay starts `bin relay` on the host for spec (spec.Dir = RelayDir)
// and returns its meta once its socket listens. The host's HOME, PATH, ...
// are put in front of spec.Env. The relay outlives this connection.
func (c *Client) LaunchRelay(ctx context.Context, bin string, spec relay.Spec) (relay.Meta, error) {
	base, err := c.baseEnv(ctx)
	if err != nil {
		return relay.Meta{}, err
	}
	spec.Env = append(base, spec.Env...)
	in, err := json.Marshal(spec)
	if err != nil {
		return relay.Meta{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := c.Cmd(ctx, "sh", "-c", launchScript, "jc", bin, spec.Dir, spec.ID)
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return relay.Meta{}, err
	}
	if err := cmd.Start(); err != nil {
		return relay.Meta{}, fmt.Errorf("remote: launch relay on %s: %w", c.host, err)
	}
	line, rerr := bufio.NewReader(out).ReadBytes('\n')
	// The relay keeps the session's stdout: end this ssh client (its own
	// group), which closes the channel; the relay ignores SIGHUP/SIGPIPE.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	_ = cmd.Wait()
	var m relay.Meta
	if rerr == nil {
		rerr = json.Unmarshal(line, &m)
	}
	if rerr != nil {
		return relay.Meta{}, fmt.Errorf("remote: relay on %s did not start: %v: %s%s", c.host, rerr,
			strings.TrimSpace(stderr.String()), c.relayLog(spec))
	}
	return m, nil
}

// relayLogScript prints the end of a relay's log ($1) and removes it (its
// only content goes into the error).
const relayLogScript = `tail -c 2000 -- "$1" 2>/dev/null; rm -f -- "$1"`

// relayLog is the end of the log of a relay that did not start (why), ""
// when it cannot be read.
func (c *Client) relayLog(spec relay.Spec) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := c.Output(ctx, "sh", "-c", relayLogScript, "jc", path.Join(spec.Dir, spec.ID+".log"))
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		return ""
	}
	return "; its log: " + strings.TrimSpace(string(out))
}

// baseEnv reads the host's HOME, PATH, ... as its login gives them.
func (c *Client) baseEnv(ctx context.Context) ([]string, error) {
	out, err := c.Output(ctx, "env")
	if err != nil {
		return nil, fmt.Errorf("remote: environment of %s: %w", c.host, err)
	}
	have := map[string]string{}
	for _, kv := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			have[k] = v
		}
	}
	if home := have["HOME"]; home != "" {
		// Where the Hosts page installs agent CLIs (npm --prefix ~/.local).
		have["PATH"] = home + "/.local/bin:" + have["PATH"]
	}
	var env []string
	for _, k := range remoteBaseEnv {
		if v, ok := have[k]; ok {
			env = append(env, k+"="+v)
		}
	}
	return env, nil
}

// sshStream is the stdio of `ssh host bin relay dial SOCKET` as one
// io.ReadWriteCloser; Close ends the ssh process group.
type sshStream struct {
	cmd *exec.Cmd
	io.Reader
	io.WriteCloser
}

func (s *sshStream) Close() error {
	// EOF first, so what was written (an Ack, a Bye) reaches the relay and
	// `relay dial` ends by itself; the ssh group is ended only if it lingers.
	s.WriteCloser.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(3 * time.Second):
	}
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	}
	return <-done
}

// DialRelay attaches to a relay on the host through the connection: `bin
// relay dial SOCKET` bridges the ssh channel to the relay's unix socket
// there, and the relay checks the token end to end.
func (c *Client) DialRelay(ctx context.Context, bin string, m relay.Meta, from uint64) (*relay.Client, error) {
	if c.pool.isClosed() {
		return nil, fmt.Errorf("remote: dial relay on %s: %w", c.host, ErrPoolClosed)
	}
	cmd := c.Cmd(context.WithoutCancel(ctx), bin, "relay", "dial", m.Socket)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("remote: dial relay on %s: %w", c.host, err)
	}
	s := &sshStream{cmd: cmd, Reader: out, WriteCloser: in}
	type res struct {
		c   *relay.Client
		err error
	}
	got := make(chan res, 1)
	go func() { rc, err := relay.Attach(s, m.Token, from); got <- res{rc, err} }()
	select {
	case r := <-got:
		if r.err != nil {
			return nil, fmt.Errorf("remote: attach relay on %s: %w", c.host, r.err)
		}
		if c.pool.isClosed() { // closed while connecting: the app is leaving
			_ = r.c.Close()
			return nil, fmt.Errorf("remote: dial relay on %s: %w", c.host, ErrPoolClosed)
		}
		return r.c, nil
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
}

// ErrRelayGone: the relay on the host is not there any more (its socket
// does not answer) while its connection works.
var ErrRelayGone = errors.New("relay gone")
