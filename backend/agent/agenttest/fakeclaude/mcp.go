package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpTurn is a turn that calls the app's MCP server like Claude Code does
// (FAKE_CLAUDE_MCP_PROGRESS): the tool_use line is written, the tool
// report_progress is called on the server named in --mcp-config, then its
// tool_result, a closing text and the result are queued.
func (f *fake) mcpTurn(message string) [][]byte {
	const name = "mcp__jean-claude__report_progress"
	tool := "toolu_mcp_" + f.uuid()[24:]
	f.emit(f.initLine())
	f.emit(f.assistantText("msg_fake_"+f.uuid(), "I'll report my progress to Jean-Claude."))
	f.emit(f.assistantJSON(map[string]any{"type": "tool_use", "id": tool, "name": name, "input": map[string]any{"message": message}}))
	_ = f.out.Flush()
	text, isErr := callProgress(message)
	res, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": tool, "content": text, "is_error": isErr}}},
		"parent_tool_use_id": nil, "session_id": f.session, "uuid": f.uuid()})
	return [][]byte{res, f.assistantText("msg_fake_"+f.uuid(), "Progress reported; the task is done."), f.result(false)}
}

func (f *fake) assistantJSON(block map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg_fake_" + f.uuid(), "type": "message", "role": "assistant",
		"model": "claude-fake", "content": []any{block}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}},
		"parent_tool_use_id": nil, "session_id": f.session, "uuid": f.uuid()})
	return b
}

// callProgress calls report_progress on the jean-claude server of the
// --mcp-config file; it returns the tool's text (or the error).
func callProgress(message string) (string, bool) {
	url, header, err := mcpServer()
	if err != nil {
		return err.Error(), true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "fakeclaude", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: withHeader{header}}}, nil)
	if err != nil {
		return "connect: " + err.Error(), true
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "report_progress", Arguments: map[string]any{"message": message}})
	if err != nil {
		return "call: " + err.Error(), true
	}
	var b []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b = append(b, t.Text)
		}
	}
	return strings.Join(b, "\n"), res.IsError
}

// mcpConfig is the jean-claude server of --mcp-config, read once at the
// start (loadMCPConfig, when FAKE_CLAUDE_MCP_PROGRESS is set): Claude Code
// reads its MCP configuration when it starts, and the app removes the file
// when it lets go of the session (e.g. when it quits and the agent runs on
// behind its relay).
var mcpConfig struct {
	url, header string
	err         error
}

func loadMCPConfig() {
	mcpConfig.url, mcpConfig.header, mcpConfig.err = readMCPConfig()
}

// mcpServer is the jean-claude server read at the start.
func mcpServer() (url, header string, err error) {
	return mcpConfig.url, mcpConfig.header, mcpConfig.err
}

// readMCPConfig reads the jean-claude server of --mcp-config=FILE.
func readMCPConfig() (url, header string, err error) {
	for _, a := range os.Args[1:] {
		path, ok := strings.CutPrefix(a, "--mcp-config=")
		if !ok {
			continue
		}
		var cfg struct {
			MCPServers map[string]struct {
				URL     string            `json:"url"`
				Headers map[string]string `json:"headers"`
			} `json:"mcpServers"`
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", "", err
		}
		if err := json.Unmarshal(data, &cfg); err != nil {
			return "", "", err
		}
		s := cfg.MCPServers["jean-claude"]
		return s.URL, s.Headers["Authorization"], nil
	}
	return "", "", fmt.Errorf("no --mcp-config")
}

type withHeader struct{ v string }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", h.v)
	return http.DefaultTransport.RoundTrip(r)
}
