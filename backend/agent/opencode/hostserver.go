package opencode

// OpenCode on a host (issue 21, docs/remote.md): a session whose project
// lives on another host (agent.HostTransport is an agent.HostNet) uses one
// `opencode serve` per host, started there behind a relay with the host's
// transport (the CLI found by its base name on the host), listening on the
// host's loopback on a port the host picked. Its password goes in the
// relay's spec, on ssh's stdin: never on the host's disk nor on a command
// line. Every HTTP connection (REST and the SSE stream) is a stdio forward
// through the host's ssh connection (agent.HostNet.DialHost); nothing
// listens on this machine. Such a server is not kept at quit nor adopted
// at the next start (its password is recorded nowhere).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
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

// freePort is a loopback port free where the server runs.
func (s *server) freePort(ctx context.Context) (int, error) {
	if s.host != nil {
		return s.host.FreePort(ctx)
	}
	return freePort()
}
