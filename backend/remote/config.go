package remote

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kevinburke/ssh_config"
)

// ConfigHost is one concrete Host entry of an ssh config file.
type ConfigHost struct {
	// Alias is what the user types after `ssh` (the Host pattern).
	Alias string `json:"alias"`
	// HostName, User, Port and ProxyJump as written in that Host block
	// ("" when not set there).
	HostName  string `json:"hostName"`
	User      string `json:"user"`
	Port      string `json:"port"`
	ProxyJump string `json:"proxyJump"`
}

// DefaultConfigPath is the user's ~/.ssh/config.
func DefaultConfigPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".ssh", "config")
}

// ConfigHosts lists the concrete Host aliases of an ssh config file
// (github.com/kevinburke/ssh_config): patterns with wildcards or negations
// are skipped, as are names ValidHost refuses. A missing file is no hosts.
// Include directives are followed by the parser for the user's config.
func ConfigHosts(path string) ([]ConfigHost, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("remote: ssh config: %w", err)
	}
	defer f.Close()
	cfg, err := ssh_config.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("remote: ssh config %s: %w", path, err)
	}
	seen := map[string]bool{}
	var out []ConfigHost
	for _, h := range cfg.Hosts {
		for _, pat := range h.Patterns {
			alias := pat.String()
			if strings.ContainsAny(alias, "*?!") || seen[alias] || ValidHost(alias) != nil {
				continue
			}
			seen[alias] = true
			out = append(out, hostFromBlock(alias, h))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Alias < out[j].Alias })
	return out, nil
}

func hostFromBlock(alias string, h *ssh_config.Host) ConfigHost {
	ch := ConfigHost{Alias: alias}
	for _, n := range h.Nodes {
		kv, ok := n.(*ssh_config.KV)
		if !ok {
			continue
		}
		switch strings.ToLower(kv.Key) {
		case "hostname":
			ch.HostName = kv.Value
		case "user":
			ch.User = kv.Value
		case "port":
			ch.Port = kv.Value
		case "proxyjump":
			ch.ProxyJump = kv.Value
		}
	}
	return ch
}

// ConfigOverride returns the config file ssh must be told about (-F) so it
// reads the same file the Hosts page lists: ssh itself reads the passwd
// entry's home, not $HOME. It is "" in the usual case (both the same, or
// no file), so the system-wide /etc/ssh/ssh_config keeps applying.
func ConfigOverride(listed, passwdHome string) string {
	if listed == "" || passwdHome == "" {
		return ""
	}
	if filepath.Clean(listed) == filepath.Join(passwdHome, ".ssh", "config") {
		return ""
	}
	if st, err := os.Stat(listed); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	return listed
}

// PasswdHome is the home directory of the user's passwd entry (what ssh
// reads its config from), "" when unknown.
func PasswdHome() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.HomeDir
}
