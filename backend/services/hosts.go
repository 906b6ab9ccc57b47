package services

import (
	"context"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agentmgr"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Host is one SSH host as the Hosts page shows it.
type Host struct {
	Name string `json:"name"`
	// FromConfig: a Host entry of ~/.ssh/config; Added: added by hand.
	FromConfig bool              `json:"fromConfig"`
	Added      bool              `json:"added"`
	Config     remote.ConfigHost `json:"config"`
	// Health is the last check (nil = never checked); CheckedAt in ms.
	Health    *remote.Health `json:"health"`
	CheckedAt int64          `json:"checkedAt"`
}

// HostAgent is an agent CLI the Hosts page can install on a host.
type HostAgent struct {
	Command string `json:"command"`
	Name    string `json:"name"`
	Package string `json:"package"` // name@version
}

// ProjectHost is where a project lives: Host "" = this machine.
type ProjectHost struct {
	ProjectID string `json:"projectId"`
	Host      string `json:"host"`
	Path      string `json:"path"`
}

// HostService is the Wails-bound API of remote hosts (issue 21); the
// rules are remote.Hosts'.
type HostService struct {
	ctx   context.Context
	hosts *remote.Hosts
	emit  Emitter // EventProjectsUpdated when a project is added on a host
}

// NewHostService returns the hosts service; configPath is the ssh config
// to list (remote.DefaultConfigPath()); emit may be nil (no window).
func NewHostService(ctx context.Context, db *store.DB, pool *remote.Pool, configPath string, emit Emitter) *HostService {
	if emit == nil {
		emit = nopEmitter{}
	}
	return &HostService{ctx: ctx, hosts: &remote.Hosts{Pool: pool, DB: db, ConfigPath: configPath}, emit: emit}
}

// ListHosts lists the hosts of ~/.ssh/config and those added by hand, by
// name, with their last health check.
func (s *HostService) ListHosts() ([]Host, error) {
	hs, err := s.hosts.List(s.ctx)
	return mapAll(hs, func(h remote.KnownHost) Host { return Host(h) }), err
}

// AddHost adds an SSH destination by hand (an alias, host or user@host).
func (s *HostService) AddHost(name string) (Host, error) {
	h, err := s.hosts.Add(s.ctx, name)
	if err != nil {
		return Host{}, err
	}
	return Host{Name: h.Name, Added: true}, nil
}

// RemoveHost forgets a host added by hand.
func (s *HostService) RemoveHost(name string) error { return s.hosts.Remove(s.ctx, name) }

// CheckHost runs the health check (reachable, OS/arch, git, agent CLIs,
// free disk) and stores it.
func (s *HostService) CheckHost(name string) (remote.Health, error) {
	return s.hosts.Check(s.ctx, name)
}

// HostAgents lists the agent CLIs installable on a host (npm packages at
// the versions the app pins).
func (s *HostService) HostAgents() []HostAgent {
	var out []HostAgent
	seen := map[string]bool{}
	for _, sp := range agentmgr.Specs(nil) {
		if sp.Package == "" || sp.Pinned == "" || seen[sp.Command] {
			continue
		}
		seen[sp.Command] = true
		out = append(out, HostAgent{Command: sp.Command, Name: sp.DisplayName, Package: sp.Package + "@" + sp.Pinned})
	}
	return out
}

// InstallAgent installs one of HostAgents on the host with its npm (for
// the remote user, under ~/.local) and returns npm's output.
func (s *HostService) InstallAgent(host, command string) (string, error) {
	var spec string
	for _, a := range s.HostAgents() {
		if a.Command == command {
			spec = a.Package
		}
	}
	if spec == "" {
		return "", invalid("command", agent.ErrUnknownBackend, "%q is not an agent the app can install", command)
	}
	c, err := s.hosts.Client(host)
	if err != nil {
		return "", err
	}
	return c.InstallNPM(s.ctx, spec)
}

// AddRemoteProject adds a project that lives on host at path (absolute,
// there); whether it is a git repository is asked of the host's git.
func (s *HostService) AddRemoteProject(host, dir, name string) (Project, error) {
	p, err := s.hosts.AddProject(s.ctx, host, dir, name)
	if err != nil {
		return Project{}, err
	}
	s.emit.Emit(EventProjectsUpdated, nil)
	return NewProjectDTO(p), nil
}

// ProjectHost says where a project lives (Host "" = this machine).
func (s *HostService) ProjectHost(projectID string) (ProjectHost, error) {
	ph, ok, err := s.hosts.ProjectHost(s.ctx, projectID)
	if err != nil || !ok {
		return ProjectHost{ProjectID: projectID}, err
	}
	return ProjectHost{ProjectID: projectID, Host: ph.Host, Path: ph.Path}, nil
}

// SetProjectHost moves a project's home: host "" = this machine.
func (s *HostService) SetProjectHost(projectID, host, dir string) (ProjectHost, error) {
	if err := s.hosts.SetProjectHost(s.ctx, projectID, host, dir); err != nil {
		return ProjectHost{}, err
	}
	return s.ProjectHost(projectID)
}
