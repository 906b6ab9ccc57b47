package opencode

// The shared server across app restarts (docs/relay.md): with
// Options.Relays, `opencode serve` runs behind a relay, like the agents
// with stdio, so a crash of the app (or a quit with "keep") leaves it
// running. Its port and password are recorded in the relay's meta file
// (mode 0600, in the app's data dir; never logged nor stored in the
// database). The next app attaches to that relay, checks the server's
// health with the recorded password, and uses it instead of starting one;
// the sessions of the tasks left running are then continued (Start with
// agent.WithAdopting), their events caught up from the server.

import (
	"context"
	"strconv"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/relay"
)

// serverRole is the server's role: in app_processes (a direct child) or in
// its relay's meta.
const serverRole = "opencode-server"

// Keys of the server relay's meta Extra.
const (
	extraPort     = "port"
	extraPassword = "password"
)

var _ agent.ServerKeeper = (*Backend)(nil)

// AdoptServer implements agent.ServerKeeper.
func (b *Backend) AdoptServer(ctx context.Context) bool { return b.srv.adoptServer(ctx) }

// KeepServer implements agent.ServerKeeper.
func (b *Backend) KeepServer(ctx context.Context) bool {
	kept := b.srv.keep(ctx)
	return b.keepHosts(ctx) || kept
}

// transport is how a server is started: behind a relay recording its port
// and password when relays are on, else as a direct child (nil).
func (s *server) transport(port int, password string) agent.Transport {
	if s.host != nil {
		return s.host // its relay's meta (on the host's disk) records no password
	}
	if s.opt.Relays == nil {
		return nil
	}
	return s.opt.Relays.WithExtra(map[string]string{extraPort: strconv.Itoa(port), extraPassword: password})
}

// adoptServer attaches to a server a previous app left (once) and reports
// whether the running server is such a one.
func (s *server) adoptServer(ctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disposed {
		return false
	}
	if s.proc == nil {
		if p := s.adoptLeft(ctx); p != nil {
			s.use(p)
		}
	}
	return s.proc != nil && s.proc.adopted
}

// adoptLeft finds the servers a previous app left behind relays: the first
// healthy one is adopted, the others (and dead relays' agents) ended. It
// looks once per backend. Caller holds mu.
func (s *server) adoptLeft(ctx context.Context) *process {
	if s.opt.Relays == nil || s.looked {
		return nil
	}
	s.looked = true
	metas, err := relay.List(s.opt.Relays.Dir)
	if err != nil {
		return nil
	}
	var found *process
	for _, m := range metas {
		if m.Role != serverRole {
			continue
		}
		if !m.Alive() {
			_ = m.KillAgent()
			m.Remove()
			continue
		}
		p := s.attach(ctx, m)
		if p == nil {
			continue
		}
		if found != nil {
			killGroup(p) // one shared server is enough
			continue
		}
		found = p
	}
	return found
}

// attach links to the server relay m and checks the server answers with
// the recorded password; a server that does not is stopped.
func (s *server) attach(ctx context.Context, m relay.Meta) *process {
	r, err := relay.Adopt(ctx, m, 1)
	if err != nil {
		return nil
	}
	ap := agent.AdoptProcess(agent.ProcSpec{Name: "opencode serve", Role: serverRole}, r)
	p := &process{ap: ap, base: "http://127.0.0.1:" + m.Extra[extraPort], password: m.Extra[extraPassword],
		started: time.Now(), done: ap.Done(), adopted: true}
	c := &client{base: p.base, user: s.opt.username(), password: p.password, hc: s.hc}
	hctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := c.health(hctx); err != nil {
		killGroup(p)
		return nil
	}
	s.endWithBackend(p)
	return p
}

// use makes p the running server. Caller holds mu.
func (s *server) use(p *process) {
	s.proc = p
	go s.watch(p)
}

// relayed reports whether the running server is behind a relay.
func (s *server) relayed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil && s.proc.ap.Relayed()
}

// keep detaches from a relayed server so that it outlives the app. A
// host's server is kept only when it can be adopted (its port and password
// recorded here) and sessions were detached from it (tasks left running):
// one without tasks is stopped, nothing would adopt it.
func (s *server) keep(ctx context.Context) bool {
	s.mu.Lock()
	p := s.proc
	if p == nil || !p.ap.Relayed() || s.host != nil && (!s.keepsHost() || s.detached.Load() == 0) {
		s.mu.Unlock()
		return false
	}
	s.proc = nil
	p.kept.Store(true)
	s.mu.Unlock()
	_ = p.ap.Detach(ctx)
	return true
}

// Detach implements agent.Detacher: with the server behind a relay, the
// session stops following its events without aborting the turn (the app
// quits with "keep"; the next app continues it). It reports false (and
// does nothing) when the server is the app's child.
func (s *Session) Detach(ctx context.Context) (bool, error) {
	if !s.srv.relayed() || s.srv.host != nil && !s.srv.keepsHost() { // (hostkeep.go)
		return false, nil
	}
	s.srv.detached.Add(1) // its server is kept
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	s.cancel()
	select {
	case <-s.done:
	case <-ctx.Done():
		return true, ctx.Err()
	}
	s.b.sessions.Remove(s)
	return true, nil
}
