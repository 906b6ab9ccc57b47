package remote

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"
)

// Health is what a health check found on a host.
type Health struct {
	Host      string `json:"host"`
	Reachable bool   `json:"reachable"`
	// Error is why the host is unreachable or the check failed.
	Error string `json:"error,omitempty"`
	// OS and Arch as Go names them (linux/amd64, darwin/arm64, ...), from
	// uname; RawOS/RawArch are uname's own words.
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	RawOS   string `json:"rawOs"`
	RawArch string `json:"rawArch"`
	// Git is `git --version`'s version ("" = no git).
	Git string `json:"git"`
	// Agents maps agent CLI binaries found on the remote PATH (and node,
	// npm) to their --version line.
	Agents map[string]string `json:"agents"`
	// FreeBytes is the free space of the filesystem holding $HOME.
	FreeBytes int64 `json:"freeBytes"`
	// Latency is the check's round trip.
	LatencyMs int64 `json:"latencyMs"`
}

// AgentCLIs are the binaries a health check looks for.
var AgentCLIs = []string{"claude", "opencode", "gemini", "codex", "codex-acp", "claude-code-acp", "node", "npm"}

// healthScript is a fixed program for the remote shell; it has no user
// value in it. Each line is key<TAB>value.
const healthScript = `
printf 'os\t%s\n' "$(uname -s)"
printf 'arch\t%s\n' "$(uname -m)"
if command -v git >/dev/null 2>&1; then printf 'git\t%s\n' "$(git --version 2>/dev/null)"; fi
for b in "$@"; do
  if command -v "$b" >/dev/null 2>&1; then
    v=$( (timeout 20 "$b" --version || "$b" --version) 2>/dev/null </dev/null | head -n 1)
    printf 'agent\t%s\t%s\n' "$b" "$v"
  fi
done
printf 'df\t%s\n' "$(df -Pk "$HOME" 2>/dev/null | tail -n 1)"
`

// Health checks the host: reachable, OS/arch, git, agent CLIs, free disk.
func (c *Client) Health(ctx context.Context) Health {
	h := Health{Host: c.host, Agents: map[string]string{}}
	start := time.Now()
	argv := append([]string{"sh", "-c", healthScript, "jc-health"}, AgentCLIs...)
	out, err := c.Output(ctx, argv...)
	h.LatencyMs = time.Since(start).Milliseconds()
	if err != nil {
		h.Error = err.Error()
		return h
	}
	h.Reachable = true
	parseHealth(out, &h)
	return h
}

func parseHealth(out []byte, h *Health) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch {
		case f[0] == "os" && len(f) > 1:
			h.RawOS, h.OS = f[1], goOS(f[1])
		case f[0] == "arch" && len(f) > 1:
			h.RawArch, h.Arch = f[1], goArch(f[1])
		case f[0] == "git" && len(f) > 1:
			h.Git = strings.TrimPrefix(f[1], "git version ")
		case f[0] == "agent" && len(f) > 2:
			h.Agents[f[1]] = strings.TrimSpace(f[2])
		case f[0] == "agent" && len(f) == 2:
			h.Agents[f[1]] = ""
		case f[0] == "df" && len(f) > 1:
			// Filesystem 1024-blocks Used Available Capacity Mounted-on
			cols := strings.Fields(f[1])
			if len(cols) >= 4 {
				if kb, err := strconv.ParseInt(cols[3], 10, 64); err == nil {
					h.FreeBytes = kb * 1024
				}
			}
		}
	}
}

func goOS(s string) string {
	switch strings.ToLower(s) {
	case "linux":
		return "linux"
	case "darwin":
		return "darwin"
	case "freebsd":
		return "freebsd"
	}
	return strings.ToLower(s)
}

func goArch(s string) string {
	switch s {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	case "armv7l", "armv6l":
		return "arm"
	case "i686", "i386":
		return "386"
	}
	return s
}
