package orchestrator

// Codex app-server behind a relay, adopted after an app restart: its
// JSON-RPC handshake is not repeated (the fake fails on an unexpected
// initialize or thread/start), the session's books are rebuilt from the
// replayed journal, and new requests use ids that do not collide.

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/acp"
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/codex"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// fakeCodex builds the codex package's fake app-server.
func fakeCodex(t *testing.T) string {
	t.Helper()
	return agenttest.BuildOnce(t, "../agent/codex/testdata/fakeappserver", "codex")
}

// childAppOtherBackends registers the fake Codex in the child app
// (CHILD_CODEX): a slow turn of CHILD_SCRIPT deltas, CHILD_LINE_DELAY apart.
func childAppOtherBackends(reg *agent.Registry, script, delay string) {
	if bin := os.Getenv("CHILD_ACP"); bin != "" {
		b, err := acp.New(acp.Config{Name: "acp.test.fake", DisplayName: "Fake", Command: bin, Env: map[string]string{
			"FAKEAGENT_STREAM": script, "FAKEAGENT_DELAY": delay, "FAKEAGENT_OUT_LOG": os.Getenv("CHILD_OUT_LOG")}})
		if err == nil {
			reg.Register(b)
		}
	}
	bin := os.Getenv("CHILD_CODEX")
	if bin == "" {
		return
	}
	for k, v := range map[string]string{"FAKE_MODE": "slow", "FAKE_STREAM": script, "FAKE_LINE_DELAY": delay,
		"FAKE_OUT_LOG": os.Getenv("CHILD_OUT_LOG")} {
		os.Setenv(k, v)
	}
	reg.Register(codex.New(codex.Options{Binary: bin}))
}

func codexRelayOrchestrator(t *testing.T, db *store.DB, rdir string, keep bool) *Orchestrator {
	t.Helper()
	reg := agent.NewRegistry()
	reg.Register(codex.New(codex.Options{Binary: fakeCodex(t)}))
	o, err := New(Options{DB: db, Backends: reg, Emitter: newRecorder(t, db),
		Formats: agent.NewFormats(claude.Format(), codex.AppServerFormat()), Relays: &relay.Transport{Dir: rdir}, KeepOnQuit: keep})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	return o
}

// agentFrames is every stored raw frame the agent wrote (the app's own
// JSON-RPC messages carry "jsonrpc"; the fake's do not), one a line.
func agentFrames(t *testing.T, db *store.DB, taskID string) []byte {
	var b bytes.Buffer
	for f, err := range store.RawFrames(context.Background(), db.R, taskID) {
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(f.Data, []byte(`"jsonrpc"`)) {
			continue
		}
		b.Write(f.Data)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func TestRelayCodexAppKilledMidStreamAdopted(t *testing.T) {
	dir := t.TempDir()
	dbPath, outLog, rdir := filepath.Join(dir, "app.db"), filepath.Join(dir, "agent.out"), relayDir(t)
	db := openDBAt(t, dbPath)
	addTask(t, db, "t1", "codex", "long job")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childAppEnv+"=1", "CHILD_DB="+dbPath, "CHILD_CODEX="+fakeCodex(t),
		"CHILD_SCRIPT=300", "CHILD_LINE_DELAY=5ms", "CHILD_RELAY_DIR="+rdir, "CHILD_OUT_LOG="+outLog)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for n, sc := 0, bufio.NewScanner(stdout); n < 30 && sc.Scan(); {
		if strings.HasPrefix(sc.Text(), "ERR") {
			t.Fatalf("child app: %s", sc.Text())
		}
		if strings.HasPrefix(sc.Text(), "EMIT") {
			n++
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()

	metas, err := relay.List(rdir)
	if err != nil || len(metas) != 1 || !metas[0].Alive() {
		t.Fatalf("relays after the app died: %+v %v", metas, err)
	}
	o := codexRelayOrchestrator(t, db, rdir, false)
	if _, err := o.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tr := loadTask(t, db, "t1"); tr.Status != store.StatusRunning || tr.StatusReason != ReasonContinued {
		t.Fatalf("after adoption: %s %q", tr.Status, tr.StatusReason)
	}
	waitLong(t, "task completed", func() bool { return loadTask(t, db, "t1").Status == store.StatusCompleted })
	want, err := os.ReadFile(outLog)
	if err != nil {
		t.Fatal(err)
	}
	if got := agentFrames(t, db, "t1"); !bytes.Equal(got, want) {
		_ = os.WriteFile("/tmp/relay_codex_got.txt", got, 0o600)
		t.Fatalf("stored raw frames (%d bytes) differ from what the agent wrote (%d bytes)", len(got), len(want))
	}
	// A follow-up on the adopted session: a new turn/start with a fresh id.
	if err := o.SendMessage(context.Background(), "t1", "and one more"); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "the follow-up's turn", func() bool {
		return framesWith(t, db, "t1", `"turn/completed"`) >= 2 && loadTask(t, db, "t1").Status == store.StatusCompleted
	})
	if n := framesWith(t, db, "t1", `"method":"initialize"`); n != 1 {
		t.Errorf("initialize sent %d times, want once", n)
	}
	if err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "relay to remove itself", func() bool { ms, _ := relay.List(rdir); return len(ms) == 0 && !metas[0].Alive() })
}

// Quit with "keep" right after the start: the app-server asks two
// approvals while no app runs (the fake writes a line every 30 ms); the
// next app adopts it without a new handshake, the approvals are answered
// with the ids the server gave them (the fake checks them), the turn
// completes.
func TestRelayCodexQuitKeepPermissionWhileAway(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	rdir := relayDir(t)
	transcript, _ := filepath.Abs("../agent/codex/testdata/fakeappserver/perm.transcript.jsonl")
	t.Setenv("FAKE_TRANSCRIPT", transcript)
	t.Setenv("FAKE_LINE_DELAY", "30ms")
	addTask(t, db, "t1", "codex", "Create hello.txt, then make a directory.")
	o1 := codexRelayOrchestrator(t, db, rdir, true)
	if err := o1.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if err := o1.Close(ctx); err != nil { // quit with "keep"
		t.Fatal(err)
	}
	metas, _ := relay.List(rdir)
	if len(metas) != 1 || !metas[0].Alive() {
		t.Fatalf("relays after quit-keep: %+v", metas)
	}
	time.Sleep(1500 * time.Millisecond) // the approval is asked while nobody is there

	o2 := codexRelayOrchestrator(t, db, rdir, false)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	for i, want := range []agent.Behavior{agent.Allow, agent.Deny} {
		var reqs []store.PendingRequest
		waitLong(t, "an approval pending", func() bool {
			reqs, _ = o2.PendingRequests(ctx, "t1")
			return len(reqs) == 1 && loadTask(t, db, "t1").Status == store.StatusWaiting
		})
		if err := o2.RespondToPermission(ctx, "t1", reqs[0].RequestID, PermissionAnswer{Behavior: want}); err != nil {
			t.Fatalf("approval %d: %v", i, err)
		}
		waitLong(t, "the answer taken", func() bool {
			r, _ := o2.PendingRequests(ctx, "t1")
			return len(r) == 0 || r[0].RequestID != reqs[0].RequestID
		})
	}
	waitLong(t, "task completed", func() bool { return loadTask(t, db, "t1").Status == store.StatusCompleted })
	if n := framesWith(t, db, "t1", `"method":"initialize"`); n != 1 {
		t.Errorf("initialize sent %d times, want once", n)
	}
}

// framesWith counts the stored raw frames of taskID that contain s.
func framesWith(t *testing.T, db *store.DB, taskID, s string) int {
	n := 0
	for f, err := range store.RawFrames(context.Background(), db.R, taskID) {
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(f.Data, []byte(s)) {
			n++
		}
	}
	return n
}
