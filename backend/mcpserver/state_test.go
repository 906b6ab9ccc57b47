package mcpserver_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/mcpserver"
	"github.com/jean-claude/jean-claude/backend/store"
)

// status is the HTTP status of an MCP initialize sent with header.
func status(t *testing.T, url, header string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Authorization", header)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func progressCount(t *testing.T, db *store.DB, taskID string) int {
	t.Helper()
	msgs, err := store.Messages(context.Background(), db.R, taskID)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Type == agent.PartSystemStatus && p.Subtype == "progress" {
				n++
			}
		}
	}
	return n
}

// The app restarts while an agent runs on (behind its relay) with the
// token and URL it read at its start: the next app's server listens at
// the same address, and once the task is adopted the agent's own client
// session calls a tool again. A task not adopted keeps no token; a new
// session of the adopted task ends the previous app's token. The state
// file holds hashes only, mode 0600.
func TestAdoptedTokenWorksAfterRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-server.json")
	h := newHarness(t, func(o *mcpserver.Options) { o.StateFile = path })
	h.start(t, "t1", "parent")
	h.start(t, "t2", "other")
	m1, m2 := h.be.cfg("parent").MCP, h.be.cfg("other").MCP
	cs := h.connect(t, "parent") // the agent's client, kept across the restart
	call(t, cs, "report_progress", map[string]any{"message": "before the restart"})

	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if st.Mode().Perm() != 0o600 || strings.Contains(string(data), m1.Token) || strings.Contains(string(data), m2.Token) {
		t.Fatalf("state file %v: %s", st.Mode(), data)
	}

	closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.srv.Close(closeCtx) // the app is gone
	srv2, err := mcpserver.New(mcpserver.Options{DB: h.db, Orchestrator: h.o, StateFile: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv2.Close(context.Background()) })
	if srv2.URL() != m1.URL {
		t.Fatalf("the next server listens at %s, the agent calls %s", srv2.URL(), m1.URL)
	}
	if got := status(t, srv2.URL(), m1.Header()); got != http.StatusUnauthorized {
		t.Fatalf("a token of a task not (yet) adopted: %d, want 401", got)
	}
	fresh, err := srv2.Adopt("t1")
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Unreachable != "" {
		t.Errorf("an adoption whose token was kept says the agent cannot reach the server: %q", fresh.Unreachable)
	}
	srv2.ForgetKept()
	call(t, cs, "report_progress", map[string]any{"message": "after the restart"})
	if n := progressCount(t, h.db, "t1"); n != 2 {
		t.Fatalf("%d progress reports stored, want 2", n)
	}
	if got := status(t, srv2.URL(), fresh.Header()); got != http.StatusOK {
		t.Errorf("the adoption's new token: %d", got)
	}
	if got := status(t, srv2.URL(), m2.Header()); got != http.StatusUnauthorized {
		t.Errorf("a task not adopted: %d, want 401", got)
	}
	data, _ = os.ReadFile(path)
	if strings.Contains(string(data), `"t2"`) {
		t.Errorf("the state keeps a task not adopted: %s", data)
	}
	if _, err := srv2.Grant("t1"); err != nil { // the task's next session
		t.Fatal(err)
	}
	if got := status(t, srv2.URL(), m1.Header()); got != http.StatusUnauthorized {
		t.Errorf("the previous app's token after a new session: %d, want 401", got)
	}
	// An adoption whose tokens are gone (here dropped by ForgetKept) says
	// why its agent cannot reach the server.
	if m, err := srv2.Adopt("t2"); err != nil || !strings.Contains(m.Unreachable, "kept no token") {
		t.Errorf("an adoption after its tokens were dropped: %v, Unreachable %q", err, m.Unreachable)
	}
}

// A deleted task's tokens stop working at once (Revoke, which the app
// calls when it deletes a task), the one its agent's open client session
// uses included; another task's keep working; the state file forgets the
// task, so the next app keeps no token of it either.
func TestRevokeEndsATasksTokens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-server.json")
	h := newHarness(t, func(o *mcpserver.Options) { o.StateFile = path })
	h.start(t, "t1", "parent")
	h.start(t, "t2", "other")
	m1, m2 := h.be.cfg("parent").MCP, h.be.cfg("other").MCP
	cs := h.connect(t, "parent")
	call(t, cs, "report_progress", map[string]any{"message": "before"})
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"t1"`) {
		t.Fatalf("the state file does not hold the task before: %s", data)
	}

	h.srv.Revoke("t1")
	if got := status(t, h.srv.URL(), m1.Header()); got != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d, want 401", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "report_progress",
		Arguments: map[string]any{"message": "after"}}); err == nil && !res.IsError {
		t.Error("the open client session of a revoked task still calls a tool")
	}
	if n := progressCount(t, h.db, "t1"); n != 1 {
		t.Errorf("%d progress reports stored, want 1 (none after the revocation)", n)
	}
	if got := status(t, h.srv.URL(), m2.Header()); got != http.StatusOK {
		t.Errorf("another task's token after the revocation: %d, want 200", got)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), `"t1"`) || !strings.Contains(string(data), `"t2"`) {
		t.Errorf("the state file after revoking t1: %s", data)
	}
}

// The previous address is taken: the server listens elsewhere, says so in
// the log, and an adoption still gets a working new token.
func TestAdoptWhenTheAddressIsTaken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp-server.json")
	h := newHarness(t, func(o *mcpserver.Options) { o.StateFile = path })
	h.start(t, "t1", "parent")
	old := h.be.cfg("parent").MCP
	if err := h.srv.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", strings.TrimSuffix(strings.TrimPrefix(old.URL, "http://"), mcpserver.Path))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	srv2, err := mcpserver.New(mcpserver.Options{DB: h.db, Orchestrator: h.o, StateFile: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv2.Close(context.Background()) })
	if srv2.URL() == old.URL {
		t.Fatal("listening on a taken address")
	}
	fresh, err := srv2.Adopt("t1")
	if err != nil {
		t.Fatal(err)
	}
	// Said to the task (the orchestrator's notice): why its agent lost them.
	if want := "(" + ln.Addr().String() + ") was taken"; !strings.Contains(fresh.Unreachable, want) {
		t.Errorf("Unreachable = %q, want it to say %q", fresh.Unreachable, want)
	}
	if got := status(t, srv2.URL(), old.Header()); got != http.StatusUnauthorized {
		t.Errorf("old token on another address: %d", got)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: fresh.URL,
		HTTPClient: &http.Client{Transport: bearer{fresh.Header()}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call(t, cs, "report_progress", map[string]any{"message": "new token"})
	if g, err := srv2.Grant("t1"); err != nil || g.Unreachable != "" { // a new session reads the new address
		t.Errorf("a new session's grant: %v, Unreachable %q", err, g.Unreachable)
	}
}
