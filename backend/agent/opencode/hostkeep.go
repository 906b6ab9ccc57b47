package opencode

// A host's server across app restarts (issue 21, docs/remote.md): like
// this machine's (keep.go) it runs behind a relay, so a crash of the app
// or a quit with "keep" leaves it running there. Its relay's meta lives on
// the host and records no password; the port and password are recorded on
// this machine instead, one file per server in Options.HostServers (mode
// 0600, folder 0700; never in the database, never logged, never on the
// host's disk). The next app attaches to that relay on the host, checks
// the server's health with the recorded password, and continues the
// sessions of the tasks left running there (Start with agent.WithAdopting:
// what happened meanwhile is caught up from the server).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/atomicfile"
)

// hostRecord is what a host's server needs to be adopted.
type hostRecord struct {
	Host     string `json:"host"`
	RelayID  string `json:"relayId"`
	Port     int    `json:"port"`
	Password string `json:"password"`
}

var _ agent.HostServerKeeper = (*Backend)(nil)

// AdoptHostServer implements agent.HostServerKeeper.
func (b *Backend) AdoptHostServer(ctx context.Context, t agent.Transport) (bool, error) {
	s, err := b.serverFor(agent.WithHostTransport(ctx, t))
	if err != nil {
		return false, err
	}
	return s.adoptHost(ctx)
}

// keepHosts leaves the host servers that serve kept sessions running.
func (b *Backend) keepHosts(ctx context.Context) bool {
	b.hostMu.Lock()
	hs := make([]*server, 0, len(b.hosts))
	for _, s := range b.hosts {
		hs = append(hs, s)
	}
	b.hostMu.Unlock()
	kept := false
	for _, s := range hs {
		kept = s.keep(ctx) || kept
	}
	return kept
}

// recordPrefix names the records of this server's host.
func (s *server) recordPrefix() string {
	sum := sha256.Sum256([]byte(s.host.HostKey()))
	return filepath.Join(s.opt.HostServers, hex.EncodeToString(sum[:8])+"-")
}

// keepsHost reports whether a host's server can be kept and adopted.
func (s *server) keepsHost() bool { return s.host != nil && s.opt.HostServers != "" }

// record writes the port and password of p, a host's server just started.
func (s *server) record(p *process, port int) {
	id := p.ap.RelayID()
	if !s.keepsHost() || id == "" {
		return
	}
	b, err := json.Marshal(hostRecord{Host: s.host.HostKey(), RelayID: id, Port: port, Password: p.password})
	if err != nil || os.MkdirAll(s.opt.HostServers, 0o700) != nil {
		return
	}
	_ = atomicfile.Write(s.recordPrefix()+id+".json", b)
}

// forget removes p's record: it ended, or it is being stopped.
func (s *server) forget(p *process) {
	if id := p.ap.RelayID(); s.keepsHost() && id != "" {
		_ = os.Remove(s.recordPrefix() + id + ".json")
	}
}

// records are the recorded servers of this host.
func (s *server) records() []hostRecord {
	paths, _ := filepath.Glob(s.recordPrefix() + "*.json")
	var out []hostRecord
	for _, p := range paths {
		var r hostRecord
		b, err := os.ReadFile(p)
		if err != nil || json.Unmarshal(b, &r) != nil || r.Host != s.host.HostKey() || r.Port <= 0 ||
			!strings.HasSuffix(p, "-"+r.RelayID+".json") {
			continue
		}
		out = append(out, r)
	}
	return out
}

// adoptHost attaches to the server a previous app left on the host (the
// first healthy recorded one; the others are stopped) and reports whether
// the running server is such a one. An error: the host could not be asked
// (nothing is decided; asked again later).
func (s *server) adoptHost(ctx context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.disposed {
		return false, nil
	}
	if s.proc != nil {
		return s.proc.adopted, nil
	}
	hr, ok := s.host.(agent.HostRelays)
	if s.looked || !s.keepsHost() || !ok {
		return false, nil
	}
	var found *process
	for _, rec := range s.records() {
		p, err := s.attachHost(ctx, hr, rec)
		if err != nil && found == nil {
			return false, err
		}
		switch {
		case err != nil: // asked again at the next start
		case p == nil:
			_ = os.Remove(s.recordPrefix() + rec.RelayID + ".json")
		case found != nil: // one shared server is enough
			s.forget(p)
			killGroup(p)
		default:
			found = p
		}
	}
	s.looked = true
	if found == nil {
		return false, nil
	}
	s.use(found)
	return true, nil
}

// attachHost links to the recorded server's relay on the host and checks
// the server answers with the recorded password; nil when it is gone or
// does not answer (then it is stopped).
func (s *server) attachHost(ctx context.Context, hr agent.HostRelays, rec hostRecord) (*process, error) {
	r, ok, err := hr.AdoptRelay(ctx, rec.RelayID)
	if err != nil || !ok {
		return nil, err
	}
	ap := agent.AdoptProcess(agent.ProcSpec{Name: "opencode serve", Role: serverRole}, r)
	p := &process{ap: ap, base: "http://127.0.0.1:" + strconv.Itoa(rec.Port), password: rec.Password,
		started: time.Now(), done: ap.Done(), adopted: true}
	c := &client{base: p.base, user: s.opt.username(), password: p.password, hc: s.hc}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := c.health(hctx); err != nil {
		killGroup(p)
		return nil, nil
	}
	s.endWithBackend(p)
	return p, nil
}
