package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// client is the ACP client side the SDK calls into: permissions wait for the
// user, files are served from the task's folder only, terminals are not
// offered. Session updates need nothing here: the raw frames were already
// normalized on their way in.
type client struct{ s *session }

var _ sdk.Client = (*client)(nil)

// ErrOutsideRoot: the agent asked for a file outside the task's folder.
var ErrOutsideRoot = errors.New("path outside the task folder")

// SessionUpdate implements sdk.Client.
func (c *client) SessionUpdate(context.Context, sdk.SessionNotification) error { return nil }

// RequestPermission implements sdk.Client: it waits for RespondToPermission
// (or a cancel) on the request the normalizer announced for this tool call.
func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	pp := c.s.claimPerm(string(p.ToolCall.ToolCallId))
	if pp == nil {
		return cancelledOutcome(), nil
	}
	defer func() {
		c.s.mu.Lock()
		delete(c.s.perms, pp.id)
		c.s.mu.Unlock()
	}()
	select {
	case a := <-pp.answer:
		return a, nil
	case <-ctx.Done():
		return cancelledOutcome(), nil
	case <-c.s.done:
		return cancelledOutcome(), nil
	}
}

// claimPerm takes the oldest announced, unclaimed permission request for the
// tool call toolID (the normalizer names a request without one "rpc-<id>").
// The SDK hands requests over in the order they were read, after the
// normalizer announced them.
func (s *session) claimPerm(toolID string) *pendingPerm {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best *pendingPerm
	for _, p := range s.perms {
		if p.claimed || (p.toolID != toolID && !(toolID == "" && strings.HasPrefix(p.toolID, "rpc-"))) {
			continue
		}
		if best == nil || p.seq < best.seq {
			best = p
		}
	}
	if best != nil {
		best.claimed = true
	}
	return best
}

// ErrFilesOnHost: the agent asked the client for a file while it runs on
// another host; the task's folder is there, not on this machine's disk.
var ErrFilesOnHost = errors.New("the agent runs on a remote host: its files are there; the client does not serve them (fs not offered)")

// notOnHost refuses a file request of an agent that runs on another host
// (nil when the client serves files): this machine's disk must never
// stand in for the host's. The agent was offered no fs capability.
func (c *client) notOnHost(method, path string) error {
	if !c.s.onHost {
		return nil
	}
	return &sdk.RequestError{Code: -32601, Message: "Method not found: " + method + ": " + ErrFilesOnHost.Error(),
		Data: map[string]any{"method": method, "path": path}}
}

// ReadTextFile implements sdk.Client, confined to the task's folder.
func (c *client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	if err := c.notOnHost(methodReadFile, p.Path); err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	path, err := confine(c.s.root, p.Path)
	if err != nil {
		return sdk.ReadTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"path": p.Path, "error": err.Error()})
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if c.s.b.cfg.MissingFileEmpty {
				return sdk.ReadTextFileResponse{Content: ""}, nil
			}
			return sdk.ReadTextFileResponse{}, &sdk.RequestError{Code: -32002, Message: "Resource not found: " + p.Path}
		}
		return sdk.ReadTextFileResponse{}, sdk.NewInternalError(map[string]any{"path": p.Path, "error": err.Error()})
	}
	return sdk.ReadTextFileResponse{Content: sliceLines(string(b), p.Line, p.Limit)}, nil
}

// sliceLines returns limit lines starting at the 1-based line.
func sliceLines(s string, line, limit *int) string {
	if line == nil && limit == nil {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	start := 0
	if line != nil && *line > 1 {
		start = min(*line-1, len(lines))
	}
	end := len(lines)
	if limit != nil && *limit >= 0 {
		end = min(start+*limit, len(lines))
	}
	return strings.Join(lines[start:end], "")
}

// WriteTextFile implements sdk.Client, confined to the task's folder.
func (c *client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	if err := c.notOnHost(methodWriteFile, p.Path); err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	path, err := confine(c.s.root, p.Path)
	if err != nil {
		return sdk.WriteTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"path": p.Path, "error": err.Error()})
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return sdk.WriteTextFileResponse{}, sdk.NewInternalError(map[string]any{"path": p.Path, "error": err.Error()})
	}
	if err := os.WriteFile(path, []byte(p.Content), 0o644); err != nil {
		return sdk.WriteTextFileResponse{}, sdk.NewInternalError(map[string]any{"path": p.Path, "error": err.Error()})
	}
	return sdk.WriteTextFileResponse{}, nil
}

func noTerminal() error { return sdk.NewMethodNotFound("terminal (not offered by this client)") }

// CreateTerminal implements sdk.Client: terminals are not offered.
func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, noTerminal()
}

// KillTerminal implements sdk.Client.
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, noTerminal()
}

// TerminalOutput implements sdk.Client.
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, noTerminal()
}

// ReleaseTerminal implements sdk.Client.
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, noTerminal()
}

// WaitForTerminalExit implements sdk.Client.
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, noTerminal()
}

// resolveRoot makes the task folder absolute with symlinks resolved.
func resolveRoot(cwd string) (string, error) {
	if cwd == "" {
		return "", fmt.Errorf("%w: no working directory", ErrOutsideRoot)
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("working directory %s: %w", cwd, err)
	}
	return root, nil
}

// confine resolves path (absolute, as ACP requires) and fails unless it
// lies inside root once symlinks of its existing ancestors are resolved.
func confine(root, path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%w: %q is not absolute", ErrOutsideRoot, path)
	}
	clean := filepath.Clean(path)
	// Resolve the deepest existing ancestor, then re-append the rest.
	existing, rest := clean, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	resolved, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrOutsideRoot, err)
	}
	full := filepath.Join(resolved, rest)
	rel, err := filepath.Rel(root, full)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %s (folder %s)", ErrOutsideRoot, path, root)
	}
	return full, nil
}
