package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/jean-claude/jean-claude/backend/inputerr"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Hosts are the hosts the app knows (the Host entries of the ssh config
// and those added by hand, with their last health check) and the projects
// that live on them. services.HostService is its face.
type Hosts struct {
	Pool       *Pool // nil: no ssh client (every host call fails with ErrSSHNotFound)
	DB         *store.DB
	ConfigPath string // the ssh config to list (DefaultConfigPath)
}

// KnownHost is one host of List.
type KnownHost struct {
	Name string
	// FromConfig: a Host entry of the ssh config; Added: added by hand.
	FromConfig bool
	Added      bool
	Config     ConfigHost
	// Health is the last check (nil = never checked); CheckedAt in ms.
	Health    *Health
	CheckedAt int64
}

// List lists the hosts of the ssh config and those added by hand, by
// name, with their last health check.
func (h *Hosts) List(ctx context.Context) ([]KnownHost, error) {
	cfg, err := ConfigHosts(h.ConfigPath)
	if err != nil {
		return nil, err
	}
	byName := map[string]*KnownHost{}
	for _, c := range cfg {
		byName[c.Alias] = &KnownHost{Name: c.Alias, FromConfig: true, Config: c}
	}
	stored, err := store.ListHosts(ctx, h.DB.R)
	if err != nil {
		return nil, err
	}
	for _, s := range stored {
		v, ok := byName[s.Name]
		if !ok {
			v = &KnownHost{Name: s.Name}
			byName[s.Name] = v
		}
		v.Added = v.Added || s.AddedAt > 0
		v.CheckedAt = s.LastCheckedAt
		if s.LastHealth != "" {
			var hl Health
			if json.Unmarshal([]byte(s.LastHealth), &hl) == nil {
				v.Health = &hl
			}
		}
	}
	out := make([]KnownHost, 0, len(byName))
	for _, v := range byName {
		if v.FromConfig || v.Added {
			out = append(out, *v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Add adds an SSH destination by hand (an alias, host or user@host); a
// name that is not one, or is already added, is an inputerr.
func (h *Hosts) Add(ctx context.Context, name string) (store.Host, error) {
	name = strings.TrimSpace(name)
	if err := ValidHost(name); err != nil {
		return store.Host{}, inputerr.New("name", err, "%v", err)
	}
	added, err := store.AddHost(ctx, h.DB.W, name)
	if errors.Is(err, store.ErrDuplicate) {
		return store.Host{}, inputerr.New("name", err, "%s is already in the list", name)
	}
	return added, err
}

// Remove forgets a host added by hand.
func (h *Hosts) Remove(ctx context.Context, name string) error {
	return store.RemoveHost(ctx, h.DB.W, name)
}

// Check runs the health check (reachable, OS/arch, git, agent CLIs, free
// disk) and stores it.
func (h *Hosts) Check(ctx context.Context, name string) (Health, error) {
	c, err := h.Client(name)
	if err != nil {
		return Health{}, err
	}
	hl := c.Health(ctx)
	b, _ := json.Marshal(hl)
	if err := store.SaveHostHealth(ctx, h.DB.W, name, string(b)); err != nil {
		return hl, err
	}
	return hl, nil
}

// Client is the pool's client of host name.
func (h *Hosts) Client(name string) (*Client, error) {
	if h.Pool == nil {
		return nil, fmt.Errorf("remote hosts are not available: %w", ErrSSHNotFound)
	}
	c, err := h.Pool.Client(name)
	if err != nil {
		return nil, inputerr.New("host", err, "%v", err)
	}
	return c, nil
}

// AddProject adds a project that lives on host at dir (absolute, there),
// named name ("" = the folder's name); whether it is a git repository is
// asked of the host's git.
func (h *Hosts) AddProject(ctx context.Context, host, dir, name string) (store.Project, error) {
	c, err := h.Client(host)
	if err != nil {
		return store.Project{}, err
	}
	if dir == "" || !path.IsAbs(dir) {
		return store.Project{}, errNotAbsolute()
	}
	dir = path.Clean(dir)
	g, err := NewGit(c, nil)
	if err != nil {
		return store.Project{}, err
	}
	_, repoErr := g.OpenRepo(ctx, dir)
	if errors.Is(repoErr, ErrUnreachable) {
		return store.Project{}, repoErr
	}
	if strings.TrimSpace(name) == "" {
		name = path.Base(dir)
	}
	p, err := store.AddProject(ctx, h.DB.W, store.NewProject{Name: name, Path: dir, IsGitRepo: repoErr == nil})
	if err != nil {
		return store.Project{}, err
	}
	if err := store.SetProjectHost(ctx, h.DB.W, p.ID, host, dir); err != nil {
		return store.Project{}, err
	}
	return p, nil
}

// ProjectHost says where a project lives (ok false: on this machine).
func (h *Hosts) ProjectHost(ctx context.Context, projectID string) (store.ProjectHost, bool, error) {
	return store.GetProjectHost(ctx, h.DB.R, projectID)
}

// SetProjectHost moves a project's home to dir on host; host "" = this
// machine.
func (h *Hosts) SetProjectHost(ctx context.Context, projectID, host, dir string) error {
	if host != "" {
		if err := ValidHost(host); err != nil {
			return inputerr.New("host", err, "%v", err)
		}
		if dir == "" || !path.IsAbs(dir) {
			return errNotAbsolute()
		}
	}
	return store.SetProjectHost(ctx, h.DB.W, projectID, host, dir)
}

func errNotAbsolute() error {
	return inputerr.New("path", errors.New("not absolute"), "the folder on the host must be an absolute path")
}
