package orchestrator

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/mcpserver"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// mcpOrchestrator is an orchestrator with agents behind relays in rdir and
// the app's MCP server keeping its state in state, wired as the app does
// (orchestrator_wiring.go: an adoption re-validates the previous app's
// token).
func mcpOrchestrator(t *testing.T, db *store.DB, reg *agent.Registry, rdir, state string, keep bool) (*Orchestrator, *mcpserver.Server) {
	t.Helper()
	var m *mcpserver.Server
	o, err := New(Options{DB: db, Backends: reg, Emitter: newRecorder(t, db), Formats: agent.NewFormats(claude.Format()),
		Relays: &relay.Transport{Dir: rdir}, KeepOnQuit: keep,
		MCP: func(ctx context.Context, tr store.TaskRun) (*agent.MCPServer, error) { return m.For(ctx, tr.ID) }})
	if err != nil {
		t.Fatal(err)
	}
	if m, err = mcpserver.New(mcpserver.Options{DB: db, Orchestrator: o, StateFile: state}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = o.Close(ctx)
		_ = m.Close(ctx)
	})
	return o, m
}

// Quit with "keep", restart, send a follow-up: the agent (which read its
// MCP configuration at its start, like Claude Code, and whose config file
// the first app removed) calls report_progress on the next app's server
// with the previous app's URL and token; the progress lands on its task.
func TestRelayQuitKeepMCPToolsAfterRestart(t *testing.T) {
	db, reg, rdir, state := quitKeepWithMCP(t)
	ctx := context.Background()
	o2, m2 := mcpOrchestrator(t, db, reg, rdir, state, false)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	m2.ForgetKept()
	if err := o2.SendMessage(ctx, "t1", "report your progress"); err != nil {
		t.Fatal(err)
	}
	var c mcpCounts
	t.Cleanup(func() {
		if t.Failed() {
			rows, _ := db.R.Query(`SELECT normalizedData FROM agent_messages WHERE taskId = 't1' ORDER BY messageIndex`)
			for rows.Next() {
				var s string
				_ = rows.Scan(&s)
				t.Log(s)
			}
			rows.Close()
			t.Logf("task %+v", loadTask(t, db, "t1"))
		}
	})
	waitLong(t, "the follow-up's tool call answered", func() bool {
		c = countMCP(db)
		return loadTask(t, db, "t1").Status == store.StatusCompleted && (c.reported > 0 || c.failed > 0)
	})
	if c.progress != 1 || c.reported != 1 || c.failed != 0 {
		t.Fatalf("after the restart: %d progress parts, %d tool results \"Reported.\", %d failed calls", c.progress, c.reported, c.failed)
	}
	if n := mcpNotices(t, db); n != 0 {
		t.Errorf("%d notices that the tools are lost, with the tools working", n)
	}
}

// mcpCounts are t1's report_progress calls as stored: progress parts
// with the fake's text, tool results "Reported.", and failed calls.
type mcpCounts struct{ progress, reported, failed int }

func countMCP(db *store.DB) (c mcpCounts) {
	_ = db.R.QueryRow(`SELECT
		(SELECT COUNT(*) FROM agent_messages WHERE taskId = 't1' AND normalizedData LIKE '%"subtype":"progress"%' AND normalizedData LIKE '%reported after the restart%'),
		(SELECT COUNT(*) FROM agent_messages WHERE taskId = 't1' AND normalizedData LIKE '%Reported.%'),
		(SELECT COUNT(*) FROM agent_messages WHERE taskId = 't1' AND (normalizedData LIKE '%"content":"connect:%' OR normalizedData LIKE '%"content":"call:%'))`).
		Scan(&c.progress, &c.reported, &c.failed)
	return c
}

// quitKeepWithMCP runs task t1 (the fake Claude; each turn whose prompt
// says "report your progress" calls report_progress) behind a relay to the
// end of its first turn, then quits with "keep": the agent waits for
// input.
func quitKeepWithMCP(t *testing.T) (db *store.DB, reg *agent.Registry, rdir, state string) {
	t.Helper()
	db = openDB(t)
	ctx := context.Background()
	rdir, state = relayDir(t), filepath.Join(t.TempDir(), "mcp-server.json")
	reg = claudeRegistry(t, "FAKE_CLAUDE_MCP_PROGRESS=reported after the restart", "FAKE_CLAUDE_MCP_WHEN=report your progress")
	addTask(t, db, "t1", "claude-code", "first turn")
	o1, m1 := mcpOrchestrator(t, db, reg, rdir, state, true)
	if err := o1.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusCompleted)
	if err := o1.Close(ctx); err != nil { // quit with "keep"
		t.Fatal(err)
	}
	_ = m1.Close(ctx)
	if metas, _ := relay.List(rdir); len(metas) != 1 || !metas[0].Alive() {
		t.Fatalf("relays after quit-keep: %+v", metas)
	}
	return db, reg, rdir, state
}

// mcpNotices counts t1's notices that its agent lost the app's tools.
func mcpNotices(t *testing.T, db *store.DB) int {
	t.Helper()
	var n int
	if err := db.R.QueryRow(`SELECT COUNT(*) FROM agent_messages WHERE taskId = 't1' AND normalizedData LIKE '%"subtype":"mcp"%'
		AND normalizedData LIKE '%not available to this agent until its next session%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// The previous app's MCP address is taken when the next app starts: the
// adopted agent cannot reach the tools, and its task says so (a warning
// line naming the taken address, stored and emitted) rather than only the
// log; its call fails, the turn completes. As the notice says, a Stop and
// a message resume it in a new process, which gets the tools back.
func TestRelayQuitKeepMCPAddressTaken(t *testing.T) {
	db, reg, rdir, state := quitKeepWithMCP(t)
	ctx := context.Background()
	var st struct{ Addr string }
	data, err := os.ReadFile(state)
	if err != nil || json.Unmarshal(data, &st) != nil || st.Addr == "" {
		t.Fatalf("state file: %v %s", err, data)
	}
	ln, err := net.Listen("tcp", st.Addr) // another program took the port
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { _ = http.Serve(ln, http.NotFoundHandler()) }()
	o2, m2 := mcpOrchestrator(t, db, reg, rdir, state, false)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	m2.ForgetKept()
	if n := mcpNotices(t, db); n != 1 {
		t.Fatalf("%d notices that the adopted agent lost the tools, want 1", n)
	}
	msgs, err := o2.Messages(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	last := msgs[len(msgs)-1].Parts[0]
	if last.Status != "warning" || !strings.Contains(last.Text, "("+st.Addr+") was taken") {
		t.Errorf("the notice: %+v", last)
	}
	if err := o2.SendMessage(ctx, "t1", "report your progress"); err != nil {
		t.Fatal(err)
	}
	var c mcpCounts
	waitLong(t, "the follow-up's turn", func() bool {
		c = countMCP(db)
		return loadTask(t, db, "t1").Status == store.StatusCompleted && c.failed > 0
	})
	if err := o2.Stop(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if err := o2.SendMessage(ctx, "t1", "report your progress now"); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "the resumed session's report", func() bool {
		c = countMCP(db)
		return loadTask(t, db, "t1").Status == store.StatusCompleted && c.progress > 0
	})
	if c.failed != 1 || c.progress != 1 || c.reported != 1 {
		t.Errorf("%d failed calls, %d progress reports, %d results \"Reported.\"; want 1, 1 and 1", c.failed, c.progress, c.reported)
	}
}
