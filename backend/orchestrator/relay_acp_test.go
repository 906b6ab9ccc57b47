package orchestrator

// An ACP agent behind a relay, adopted after an app restart: no second
// initialize or session/new, replayed lines are not answered again, a
// permission asked while the app was away is answered by hand with its
// JSON-RPC id, and the SDK's requests are renumbered above the previous
// app's.

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
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

func fakeACP(t *testing.T) string {
	t.Helper()
	return agenttest.BuildOnce(t, "../agent/acp/testdata/fakeagent", "fakeagent")
}

func acpRelayOrchestrator(t *testing.T, db *store.DB, rdir string, keep bool, env map[string]string) *Orchestrator {
	t.Helper()
	b, err := acp.New(acp.Config{Name: "acp.test.fake", DisplayName: "Fake", Command: fakeACP(t), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	o, err := New(Options{DB: db, Backends: oneBackend{b}, Emitter: newRecorder(t, db),
		Formats: agent.NewFormats(acp.Format()), Relays: &relay.Transport{Dir: rdir}, KeepOnQuit: keep})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	return o
}

// storedAgentLines is the stored raw frames that are lines the agent wrote
// (want: its own record), in stored order: equal to want when each line is
// stored exactly once and in order.
func storedAgentLines(t *testing.T, db *store.DB, taskID string, want []byte) []byte {
	wrote := map[string]bool{}
	for _, l := range bytes.Split(want, []byte{'\n'}) {
		wrote[string(l)] = true
	}
	var b bytes.Buffer
	for f, err := range store.RawFrames(context.Background(), db.R, taskID) {
		if err != nil {
			t.Fatal(err)
		}
		if wrote[string(f.Data)] {
			b.Write(f.Data)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func TestRelayACPAppKilledMidStreamAdopted(t *testing.T) {
	dir := t.TempDir()
	dbPath, outLog, rdir := filepath.Join(dir, "app.db"), filepath.Join(dir, "agent.out"), relayDir(t)
	db := openDBAt(t, dbPath)
	addTask(t, db, "t1", "acp.test.fake", "stream a long job")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childAppEnv+"=1", "CHILD_DB="+dbPath, "CHILD_ACP="+fakeACP(t),
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
	o := acpRelayOrchestrator(t, db, rdir, false, map[string]string{"FAKEAGENT_OUT_LOG": outLog})
	if _, err := o.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tr := loadTask(t, db, "t1"); tr.Status != store.StatusRunning || tr.StatusReason != ReasonContinued {
		t.Fatalf("after adoption: %s %q", tr.Status, tr.StatusReason)
	}
	waitLong(t, "task completed", func() bool { return loadTask(t, db, "t1").Status == store.StatusCompleted })
	// A follow-up on the adopted session: session/prompt with a shifted id.
	if err := o.SendMessage(context.Background(), "t1", "and one more"); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "the follow-up answered", func() bool {
		return framesWith(t, db, "t1", "echo: and one more") == 1 && loadTask(t, db, "t1").Status == store.StatusCompleted
	})
	want, err := os.ReadFile(outLog)
	if err != nil {
		t.Fatal(err)
	}
	if got := storedAgentLines(t, db, "t1", want); !bytes.Equal(got, bytes.TrimLeft(want, "\n")) {
		_ = os.WriteFile("/tmp/relay_acp_got.txt", got, 0o600)
		t.Fatalf("stored agent frames (%d bytes) differ from what the agent wrote (%d bytes)", len(got), len(want))
	}
	if n := framesWith(t, db, "t1", `"method":"initialize"`); n != 1 {
		t.Errorf("initialize sent %d times, want once", n)
	}
	if err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "relay to remove itself", func() bool { ms, _ := relay.List(rdir); return len(ms) == 0 && !metas[0].Alive() })
}

func TestRelayACPQuitKeepPermissionWhileAway(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	rdir := relayDir(t)
	env := map[string]string{"FAKEAGENT_DELAY": "1s"}
	addTask(t, db, "t1", "acp.test.fake", "ask permission")
	o1 := acpRelayOrchestrator(t, db, rdir, true, env)
	if err := o1.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "the turn started", func() bool { return framesWith(t, db, "t1", "Writing hello.txt") > 0 })
	if err := o1.Close(ctx); err != nil { // quit with "keep"
		t.Fatal(err)
	}
	metas, _ := relay.List(rdir)
	if len(metas) != 1 || !metas[0].Alive() {
		t.Fatalf("relays after quit-keep: %+v", metas)
	}
	time.Sleep(1500 * time.Millisecond) // the permission is asked while nobody is there

	o2 := acpRelayOrchestrator(t, db, rdir, false, env)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	var reqs []store.PendingRequest
	waitLong(t, "the permission pending", func() bool {
		reqs, _ = o2.PendingRequests(ctx, "t1")
		return len(reqs) == 1 && loadTask(t, db, "t1").Status == store.StatusWaiting
	})
	if err := o2.RespondToPermission(ctx, "t1", reqs[0].RequestID, PermissionAnswer{Behavior: agent.Allow}); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "task completed", func() bool { return loadTask(t, db, "t1").Status == store.StatusCompleted })
	if framesWith(t, db, "t1", "Done (once).") != 1 {
		t.Errorf("the agent did not proceed with the answer")
	}
	if err := o2.SendMessage(ctx, "t1", "and one more"); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "the follow-up answered", func() bool {
		return framesWith(t, db, "t1", "echo: and one more") == 1 && loadTask(t, db, "t1").Status == store.StatusCompleted
	})
	if n := framesWith(t, db, "t1", `"method":"initialize"`); n != 1 {
		t.Errorf("initialize sent %d times, want once", n)
	}
}
