package opencode

import (
	"context"
	"sync"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// mcpOwners keeps which live session registered the app's MCP server
// with a directory's instance of the shared server: OpenCode keeps MCP
// servers per instance, so two tasks in one folder would share one (and
// one token); the second gets none and a notice instead.
type mcpOwners struct {
	mu    sync.Mutex
	byDir map[string]*Session
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
