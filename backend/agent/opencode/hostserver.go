package opencode

// OpenCode on a host (issue 21, docs/remote.md): a session whose project
// lives on another host (agent.HostTransport is an agent.HostNet) uses one
// `opencode serve` per host, started there behind a relay with the host's
// transport (the CLI found by its base name on the host), listening on the
// host's loopback on a port the host picked. Its password goes in the
// relay's spec, on ssh's stdin: never on the host's disk nor on a command
// line. Every HTTP connection (REST and the SSE stream) is a stdio forward
// through the host's ssh connection (agent.HostNet.DialHost); nothing
// listens on this machine. The app's OpenCode config goes by value
// (hostConfig). With Options.HostServers its port and password are
// recorded on this machine, so it is kept at quit with "keep" and adopted
// at the next start (hostkeep.go).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// serverFor is the server of a session started with ctx: its host's when
// the task's project lives on one, else this machine's.
func (b *Backend) serverFor(ctx context.Context) (*server, error) {
	t := agent.HostTransport(ctx)
	if t == nil {
		if agent.IsOnHost(ctx) {
			return nil, errors.New("opencode: the task runs on a host, but no connection to it was given")
		}
		return b.srv, nil
	}
	hn, ok := t.(agent.HostNet)
	if !ok {
		return nil, errors.New("opencode: this host's connection cannot reach a server there")
	}
	b.hostMu.Lock()
	defer b.hostMu.Unlock()
	if b.hosts == nil {
		b.hosts = map[string]*server{}
	}
	s := b.hosts[hn.HostKey()]
	if s == nil {
		s = newHostServer(b.opt, hn)
		b.hosts[hn.HostKey()] = s
	}
	return s, nil
}

// disposeHosts stops every host's server.
func (b *Backend) disposeHosts() {
	b.hostMu.Lock()
	hs := b.hosts
	b.hosts = nil
	b.hostMu.Unlock()
	for _, s := range hs {
		s.dispose()
	}
}

// newHostServer is the server of one host: no BaseURL, no local relays
// (it runs behind the host's), its connections dialled through the host.
func newHostServer(opt Options, hn agent.HostNet) *server {
	opt.BaseURL, opt.Relays = "", nil
	opt.Binary = path.Base(filepath.ToSlash(opt.Binary)) // looked up on the host
	s := newServer(opt)
	s.host = hn
	s.hc = &http.Client{Transport: &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			_, p, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			port, err := strconv.Atoi(p)
			if err != nil {
				return nil, err
			}
			return hn.DialHost(ctx, port)
		},
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}}
	return s
}

// lookPath finds the CLI: on this machine, or (a host's server) by its
// base name on the host, where its relay looks it up.
func (s *server) lookPath(bin string) (string, error) {
	if s.host != nil {
		return bin, nil
	}
	p, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("OpenCode not found: %w (%v); install it (npm i -g opencode-ai) or set its path", agent.ErrBinaryNotFound, err)
	}
	return p, nil
}

// hostConfig carries the app's OpenCode config (OPENCODE_CONFIG, a file
// in this machine's data dir: its provider, model, permission rules) to a
// host's server by value: OPENCODE_CONFIG_CONTENT, in the environment
// that travels on ssh's stdin, never written on the host. A path that is
// not a readable file here (maybe one on the host), or a config already
// given by value, is left as it is.
func hostConfig(env []string) []string {
	path, content := "", false
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "OPENCODE_CONFIG="); ok {
			path = v
		}
		content = content || strings.HasPrefix(kv, "OPENCODE_CONFIG_CONTENT=")
	}
	if path == "" || content {
		return env
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return env
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "OPENCODE_CONFIG=") {
			out = append(out, kv)
		}
	}
	return append(out, "OPENCODE_CONFIG_CONTENT="+string(data))
}

// abortTurn sends a stopped session's abort. A host's server may be out
// of reach for a while (its link down): the abort is tried again with
// backoff until the server answers (whatever it says), for at most
// hostAbortFor, or until the server is disposed.
func (s *server) abortTurn(c *client, id string) {
	bound := 30 * time.Second
	if s.host != nil {
		bound = hostAbortFor
	}
	ctx, cancel := context.WithTimeout(s.ctx, bound)
	defer cancel()
	for wait := time.Second; ; wait = min(wait*2, 30*time.Second) {
		actx, cancelTry := context.WithTimeout(ctx, 30*time.Second)
		err := c.abort(actx, id)
		cancelTry()
		var he *HTTPError
		if err == nil || errors.As(err, &he) || s.host == nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// hostAbortFor bounds the retries of an abort to a host's server.
const hostAbortFor = 10 * time.Minute

// freePort is a loopback port free where the server runs.
func (s *server) freePort(ctx context.Context) (int, error) {
	if s.host != nil {
		return s.host.FreePort(ctx)
	}
	return freePort()
}
