package opencode

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// mcpOwners keeps which live session registered the app's MCP server
// with a directory's instance of the shared server: OpenCode keeps MCP
// servers per instance, so two tasks in one folder would share one (and
// one token); the second gets none and a notice instead.
type mcpOwners struct {
	mu    sync.Mutex
	byDir map[string]*Session
	ops   map[string]*sync.Mutex // per folder: a registration waits for the last disconnect
}

// op is dir's lock serializing POST /mcp and its disconnect.
func (o *mcpOwners) op(dir string) *sync.Mutex {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ops == nil {
		o.ops = map[string]*sync.Mutex{}
	}
	if o.ops[dir] == nil {
		o.ops[dir] = &sync.Mutex{}
	}
	return o.ops[dir]
}

// release gives up s's hold on dir; false when s did not hold it.
func (o *mcpOwners) release(dir string, s *Session) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.byDir[dir] != s {
		return false
	}
	delete(o.byDir, dir)
	return true
}

func (o *mcpOwners) claim(dir string, s *Session) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if cur, ok := o.byDir[dir]; ok && cur != s {
		select {
		case <-cur.done:
		default:
			return false
		}
	}
	if o.byDir == nil {
		o.byDir = map[string]*Session{}
	}
	o.byDir[dir] = s
	return true
}

var _ agent.MCPAtEachStart = (*Backend)(nil)

// MCPAtEachStart implements agent.MCPAtEachStart: addMCP runs at every
// Start, an adopted session's too, with the token of this app.
func (b *Backend) MCPAtEachStart() bool { return true }

// addMCP registers the app's MCP server (cfg.MCP) with the session's
// directory instance: POST /mcp {name, config: {type: remote, url,
// headers, timeout}}. The token goes in the request body to the local
// server only (never stored, never on a command line). Failure is a
// notice on the task, never a failed start.
func (s *Session) addMCP(ctx context.Context, c *client) {
	m := s.cfg.MCP
	if m == nil {
		return
	}
	if !s.b.mcp.claim(s.cfg.Cwd, s) {
		s.mcpNotice("another task runs OpenCode in this folder with them; run tasks in their own worktrees to give each one its tools")
		return
	}
	l := s.b.mcp.op(s.cfg.Cwd)
	l.Lock()
	defer l.Unlock()
	body := map[string]any{"name": m.Name, "config": map[string]any{"type": "remote", "url": m.URL, "enabled": true,
		"headers": map[string]string{"Authorization": m.Header()}, "timeout": 24 * 60 * 60 * 1000}}
	if err := c.do(ctx, "POST", "/mcp", body, nil); err != nil {
		s.mcpNotice("OpenCode did not take the server (" + err.Error() + ")")
	}
}

func (s *Session) mcpNotice(why string) {
	s.deliverSynthetic([]agent.Event{{Type: agent.EventMessage, Message: &agent.Message{ID: "opencode-mcp-" + s.id, Role: agent.RoleSystem,
		Parts: []agent.Part{{Type: agent.PartSystemStatus, Subtype: agent.MCPNotice, Status: "info",
			Text: "Jean-Claude's tools (progress, questions, sub-tasks) are not available in this task: " + why}}}}})
}

// dropMCP disconnects the app's MCP server from the folder's instance
// when the session that registered it stops (POST /mcp/{name}/disconnect;
// OpenCode 1.18 has no way to remove one): its tools leave the folder's
// other OpenCode sessions, and the next task there registers it again.
// It runs in the background (Stop does not wait); the folder's next
// registration waits for it.
func (s *Session) dropMCP(c *client) {
	m := s.cfg.MCP
	if m == nil || !s.b.mcp.release(s.cfg.Cwd, s) {
		return
	}
	l := s.b.mcp.op(s.cfg.Cwd)
	l.Lock()
	go func() {
		defer l.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.do(ctx, "POST", "/mcp/"+url.PathEscape(m.Name)+"/disconnect", nil, nil)
	}()
}
