package remote

import (
	"os"
	"path/filepath"
	"testing"
)

func TestConfigHosts(t *testing.T) {
	cfg := `# a comment
Host build
  HostName build.example.com
  User dev
  Port 2222
  ProxyJump bastion

Host bastion gpu-1
  HostName 10.0.0.9

Host *.internal !secret
  User ops

Host *
  ServerAliveInterval 30
`
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	hosts, err := ConfigHosts(path)
	if err != nil {
		t.Fatal(err)
	}
	var aliases []string
	for _, h := range hosts {
		aliases = append(aliases, h.Alias)
	}
	if got := fmtList(aliases); got != "bastion,build,gpu-1" {
		t.Fatalf("aliases = %s", got)
	}
	b := hosts[1]
	if b.HostName != "build.example.com" || b.User != "dev" || b.Port != "2222" || b.ProxyJump != "bastion" {
		t.Fatalf("build = %+v", b)
	}
	if hs, err := ConfigHosts(filepath.Join(t.TempDir(), "none")); err != nil || hs != nil {
		t.Fatalf("missing file: %v %v", hs, err)
	}
}

func fmtList(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

func TestConfigOverride(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".ssh", "config")
	if got := ConfigOverride(cfg, home); got != "" {
		t.Fatalf("same home: %q", got)
	}
	if got := ConfigOverride(cfg, "/other"); got != "" {
		t.Fatalf("no file: %q", got)
	}
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ConfigOverride(cfg, "/other"); got != cfg {
		t.Fatalf("HOME differs from the passwd home: %q", got)
	}
}
