package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// MCPNotice is the status line a backend shows when it cannot hand the
// app's MCP server to its agent (e.g. an ACP agent without HTTP MCP).
const MCPNotice = "mcp"

// PrivateDir is a temporary directory (mode 0700) for files that carry a
// session's secrets (the MCP token); remove deletes it with its files.
// Its name carries the app's pid ("-p<pid>-"): what a crashed app left is
// removed at the next start (SweepPrivateDirs).
type PrivateDir struct{ Path string }

// privatePrefix is the start of a PrivateDir's name in the temp dir.
const privatePrefix = "jean-claude-private-"

// ownerTag is the part of a PrivateDir's name that names its app.
func ownerTag() string { return "-p" + strconv.Itoa(os.Getpid()) + "-" }

// NewPrivateDir makes a PrivateDir named after what it is for.
func NewPrivateDir(purpose string) (*PrivateDir, error) {
	dir, err := os.MkdirTemp("", privatePrefix+purpose+ownerTag())
	if err != nil {
		return nil, fmt.Errorf("agent: private dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("agent: private dir: %w", err)
	}
	return &PrivateDir{Path: dir}, nil
}

func securePrivateBase(cache string) string { return filepath.Join(cache, "jean-claude", "private") }

// NewSecurePrivateDir is NewPrivateDir under the user's cache dir
// (<cache>/jean-claude/private, 0700) rather than the temp dir: some CLIs
// refuse a settings file when a folder above it is writable by others, as
// /tmp is on Linux (Gemini CLI skips such a system settings file, so it
// would get no MCP server). It falls back to the temp dir without a cache
// dir.
func NewSecurePrivateDir(purpose string) (*PrivateDir, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return NewPrivateDir(purpose)
	}
	base := securePrivateBase(cache)
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, fmt.Errorf("agent: private dir: %w", err)
	}
	dir, err := os.MkdirTemp(base, purpose+ownerTag())
	if err != nil {
		return nil, fmt.Errorf("agent: private dir: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("agent: private dir: %w", err)
	}
	return &PrivateDir{Path: dir}, nil
}

// Write writes a file (mode 0600) under the dir and returns its path; rel
// may contain subdirectories (made 0700).
func (d *PrivateDir) Write(rel string, data []byte) (string, error) {
	p := filepath.Join(d.Path, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("agent: private file: %w", err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return "", fmt.Errorf("agent: private file: %w", err)
	}
	return p, nil
}

// Remove deletes the dir; nil-safe.
func (d *PrivateDir) Remove() {
	if d != nil {
		_ = os.RemoveAll(d.Path)
	}
}
