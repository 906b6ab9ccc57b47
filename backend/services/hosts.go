package services

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

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

// HostService is the Wails-bound API of remote hosts (issue 21).
type HostService struct {
	ctx        context.Context
	pool       *remote.Pool
	db         *store.DB
	configPath string
}

// NewHostService returns the hosts service; configPath is the ssh config
// to list (remote.DefaultConfigPath()).
func NewHostService(ctx context.Context, db *store.DB, pool *remote.Pool, configPath string) *HostService {
	return &HostService{ctx: ctx, pool: pool, db: db, configPath: configPath}
}

// ListHosts lists the hosts of ~/.ssh/config and those added by hand, by
// name, with their last health check.
func (s *HostService) ListHosts() ([]Host, error) {
	cfg, err := remote.ConfigHosts(s.configPath)
	if err != nil {
		return nil, err
	}
	byName := map[string]*Host{}
	for _, c := range cfg {
		byName[c.Alias] = &Host{Name: c.Alias, FromConfig: true, Config: c}
	}
	stored, err := store.ListHosts(s.ctx, s.db.R)
	if err != nil {
		return nil, err
	}
	for _, h := range stored {
		v, ok := byName[h.Name]
		if !ok {
			v = &Host{Name: h.Name}
			byName[h.Name] = v
		}
		v.Added = v.Added || h.AddedAt > 0
		v.CheckedAt = h.LastCheckedAt
		if h.LastHealth != "" {
			var hl remote.Health
			if json.Unmarshal([]byte(h.LastHealth), &hl) == nil {
				v.Health = &hl
			}
		}
	}
	out := make([]Host, 0, len(byName))
	for _, h := range byName {
		if h.FromConfig || h.Added {
			out = append(out, *h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// AddHost adds an SSH destination by hand (an alias, host or user@host).
func (s *HostService) AddHost(name string) (Host, error) {
	name = strings.TrimSpace(name)
	if err := remote.ValidHost(name); err != nil {
		return Host{}, invalid("name", err, "%v", err)
	}
	h, err := store.AddHost(s.ctx, s.db.W, name)
	if errors.Is(err, store.ErrDuplicate) {
		return Host{}, invalid("name", err, "%s is already in the list", name)
	}
	if err != nil {
		return Host{}, err
	}
	return Host{Name: h.Name, Added: true}, nil
}

// RemoveHost forgets a host added by hand.
func (s *HostService) RemoveHost(name string) error { return store.RemoveHost(s.ctx, s.db.W, name) }

// CheckHost runs the health check (reachable, OS/arch, git, agent CLIs,
// free disk) and stores it.
func (s *HostService) CheckHost(name string) (remote.Health, error) {
	c, err := s.client(name)
	if err != nil {
		return remote.Health{}, err
	}
	h := c.Health(s.ctx)
	b, _ := json.Marshal(h)
	if err := store.SaveHostHealth(s.ctx, s.db.W, name, string(b)); err != nil {
		return h, err
	}
	return h, nil
}

func (s *HostService) client(name string) (*remote.Client, error) {
	if s.pool == nil {
		return nil, fmt.Errorf("remote hosts are not available: %w", remote.ErrSSHNotFound)
	}
	c, err := s.pool.Client(name)
	if err != nil {
		return nil, invalid("host", err, "%v", err)
	}
	return c, nil
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
	c, err := s.client(host)
	if err != nil {
		return "", err
	}
	return c.InstallNPM(s.ctx, spec)
}

// AddRemoteProject adds a project that lives on host at path (absolute,
// there); whether it is a git repository is asked of the host's git.
func (s *HostService) AddRemoteProject(host, dir, name string) (Project, error) {
	c, err := s.client(host)
	if err != nil {
		return Project{}, err
	}
	if dir == "" || !path.IsAbs(dir) {
		return Project{}, invalid("path", errors.New("not absolute"), "the folder on the host must be an absolute path")
	}
	dir = path.Clean(dir)
	g, err := remote.NewGit(c, nil)
	if err != nil {
		return Project{}, err
	}
	_, repoErr := g.OpenRepo(s.ctx, dir)
	if errors.Is(repoErr, remote.ErrUnreachable) {
		return Project{}, repoErr
	}
	if strings.TrimSpace(name) == "" {
		name = path.Base(dir)
	}
	p, err := store.AddProject(s.ctx, s.db.W, store.NewProject{Name: name, Path: dir, IsGitRepo: repoErr == nil})
	if err != nil {
		return Project{}, err
	}
	if err := store.SetProjectHost(s.ctx, s.db.W, p.ID, host, dir); err != nil {
		return Project{}, err
	}
	return NewProjectDTO(p), nil
}

// ProjectHost says where a project lives (Host "" = this machine).
func (s *HostService) ProjectHost(projectID string) (ProjectHost, error) {
	ph, ok, err := store.GetProjectHost(s.ctx, s.db.R, projectID)
	if err != nil || !ok {
		return ProjectHost{ProjectID: projectID}, err
	}
	return ProjectHost{ProjectID: projectID, Host: ph.Host, Path: ph.Path}, nil
}

// SetProjectHost moves a project's home: host "" = this machine.
func (s *HostService) SetProjectHost(projectID, host, dir string) (ProjectHost, error) {
	if host != "" {
		if err := remote.ValidHost(host); err != nil {
			return ProjectHost{}, invalid("host", err, "%v", err)
		}
		if dir == "" || !path.IsAbs(dir) {
			return ProjectHost{}, invalid("path", errors.New("not absolute"), "the folder on the host must be an absolute path")
		}
	}
	if err := store.SetProjectHost(s.ctx, s.db.W, projectID, host, dir); err != nil {
		return ProjectHost{}, err
	}
	return s.ProjectHost(projectID)
}
