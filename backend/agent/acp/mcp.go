package acp

import (
	"bytes"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// mcpServers are the MCP servers given on session/new and session/load:
// the app's own (cfg.MCP) when the agent takes HTTP servers
// (mcpCapabilities.http); otherwise none, and a notice on the task says
// its tools are not available.
func (s *session) mcpServers() []sdk.McpServer {
	m := s.cfg.MCP
	if m == nil {
		return []sdk.McpServer{}
	}
	if !s.mcpHTTP {
		if !s.mcpNoticed {
			s.mcpNoticed = true
			s.deliver(nil, []agent.Event{{Type: agent.EventMessage, Message: &agent.Message{ID: "acp-mcp-" + string(s.b.cfg.Name),
				Role: agent.RoleSystem, Parts: []agent.Part{{Type: agent.PartSystemStatus, Subtype: agent.MCPNotice, Status: "info",
					Text: s.b.cfg.DisplayName + " does not take HTTP MCP servers: Jean-Claude's tools (progress, questions, sub-tasks) are not available in this task"}}}}})
		}
		return []sdk.McpServer{}
	}
	return []sdk.McpServer{{Http: &sdk.McpServerHttpInline{Name: m.Name, Type: "http", Url: m.URL,
		Headers: []sdk.HttpHeader{{Name: "Authorization", Value: m.Header()}}}}}
}

// redact is a line the client sends, as stored: the MCP token (in
// session/new's headers) never reaches the database.
func (s *session) redact(line []byte) []byte {
	if m := s.cfg.MCP; m != nil && m.Token != "" {
		return bytes.ReplaceAll(line, []byte(m.Token), []byte("[token]"))
	}
	return bytes.Clone(line)
}
