package orchestrator

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
	"github.com/jean-claude/jean-claude/backend/agent/agenttest"
	"github.com/jean-claude/jean-claude/backend/agent/claude"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// relayDir is a short directory for relay sockets (a unix socket path has
// ~107 bytes; t.TempDir() can be long).
func relayDir(t testing.TB) string {
	d, err := os.MkdirTemp("", "jcr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ms, _ := relay.List(filepath.Join(d, "relays"))
		for _, m := range ms {
			_ = m.KillAgent()
			if m.Alive() {
				_ = syscall.Kill(m.RelayPID, syscall.SIGKILL)
			}
		}
		os.RemoveAll(d)
	})
	return filepath.Join(d, "relays")
}

// killChildAppMidStream runs the child app (relays on) until it emitted
// `after` messages, then kill -9s it.
func killChildAppMidStream(t *testing.T, dbPath, rdir, outLog, script, delay string, after int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childAppEnv+"=1", "CHILD_DB="+dbPath, "CHILD_FAKE="+agenttest.BuildFakeClaude(t),
		"CHILD_SCRIPT="+script, "CHILD_LINE_DELAY="+delay, "CHILD_RELAY_DIR="+rdir, "CHILD_OUT_LOG="+outLog)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := 0
	sc := bufio.NewScanner(stdout)
	for n < after && sc.Scan() {
		if strings.HasPrefix(sc.Text(), "ERR") {
			t.Fatalf("child app: %s", sc.Text())
		}
		if strings.HasPrefix(sc.Text(), "EMIT") {
			n++
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
}

func relayOrchestrator(t *testing.T, db *store.DB, rdir string, keep bool) *Orchestrator {
	t.Helper()
	reg := claudeRegistry(t)
	o, err := New(Options{DB: db, Backends: reg, Emitter: newRecorder(t, db), Formats: agent.NewFormats(claude.Format()),
		Relays: &relay.Transport{Dir: rdir}, KeepOnQuit: keep})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	return o
}

// rawStream is every stored raw frame of the task, one a line.
func rawStream(t *testing.T, db *store.DB, taskID string) []byte {
	var b bytes.Buffer
	for f, err := range store.RawFrames(context.Background(), db.R, taskID) {
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(f.Data, []byte(`"type":"user"`)) && bytes.Contains(f.Data, []byte(`"text":"long job"`)) {
			continue // the app's own prompt (a frame it wrote, not the agent)
		}
		b.Write(f.Data)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// kill -9 of the app mid-stream; the relay keeps the agent running and
// journaling; the next app adopts it: the task is still running ("continued
// after restart"), every line the agent wrote is stored exactly once and
// in order (compared with the agent's own record), the stream continues
// to the end, and the relay then removes itself.
func TestRelayAppKilledMidStreamAdopted(t *testing.T) {
	dir := t.TempDir()
	dbPath, outLog, rdir := filepath.Join(dir, "app.db"), filepath.Join(dir, "agent.out"), relayDir(t)
	db := openDBAt(t, dbPath)
	addTask(t, db, "t1", "claude-code", "long job")
	killChildAppMidStream(t, dbPath, rdir, outLog, "400", "5ms", 30)

	metas, err := relay.List(rdir)
	if err != nil || len(metas) != 1 || !metas[0].Alive() || metas[0].TaskID != "t1" {
		t.Fatalf("relays after the app died: %+v %v", metas, err)
	}
	before, _ := store.CountRawFrames(context.Background(), db.R, "t1")
	o := relayOrchestrator(t, db, rdir, false)
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
	got := rawStream(t, db, "t1")
	if !bytes.Equal(got, want) {
		_ = os.WriteFile("/tmp/relay_got.txt", got, 0o600)
		_ = os.WriteFile("/tmp/relay_want.txt", want, 0o600)
		t.Fatalf("stored raw frames (%d bytes) differ from what the agent wrote (%d bytes)", len(got), len(want))
	}
	checkTranscriptMatchesRaw(t, db, "t1")
	after, _ := store.CountRawFrames(context.Background(), db.R, "t1")
	t.Logf("app killed after %d frames stored; %d after adoption", before, after)
	// Quit with "stop": the agent and its relay end, the relay's files go.
	if err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "relay to remove itself", func() bool { ms, _ := relay.List(rdir); return len(ms) == 0 && !metas[0].Alive() })
	if proc.Alive(metas[0].AgentPID) {
		t.Fatalf("agent %d still running after quit-stop", metas[0].AgentPID)
	}
}

// kill -9 of the relay while the app is away: the next app keeps every
// frame it journaled and marks the task interrupted with the reason.
func TestRelayKilledTaskInterruptedWithReason(t *testing.T) {
	dir := t.TempDir()
	dbPath, outLog, rdir := filepath.Join(dir, "app.db"), filepath.Join(dir, "agent.out"), relayDir(t)
	db := openDBAt(t, dbPath)
	addTask(t, db, "t1", "claude-code", "long job")
	killChildAppMidStream(t, dbPath, rdir, outLog, "3000", "40ms", 30) // a long turn: still running when its relay dies
	metas, _ := relay.List(rdir)
	if len(metas) != 1 {
		t.Fatalf("relays %+v", metas)
	}
	time.Sleep(200 * time.Millisecond) // the agent journals on without an app
	if err := syscall.Kill(metas[0].RelayPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "relay gone", func() bool { return !metas[0].Alive() })
	var journaled int
	_, _ = relay.ReadJournal(metas[0].Journal, 1, func(relay.Record) error { journaled++; return nil })

	o := relayOrchestrator(t, db, rdir, false)
	if _, err := o.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitLong(t, "task interrupted", func() bool { return loadTask(t, db, "t1").Status == store.StatusInterrupted })
	tr := loadTask(t, db, "t1")
	if !strings.Contains(tr.StatusReason, "relay") {
		t.Fatalf("reason %q", tr.StatusReason)
	}
	frames, _ := store.CountRawFrames(context.Background(), db.R, "t1")
	if frames < journaled {
		t.Fatalf("stored %d frames, the relay journaled %d", frames, journaled)
	}
	checkTranscriptMatchesRaw(t, db, "t1")
	waitFor(t, "journal removed", func() bool { ms, _ := relay.List(rdir); return len(ms) == 0 })
}

// Quit with "keep" right after the start: the agent runs on under its
// relay and asks a permission while no app is there; the next app adopts
// it, shows the question, the answer reaches the agent, the turn
// completes, and a follow-up is answered too.
func TestRelayQuitKeepPermissionWhileAwayThenFollowUp(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	rdir := relayDir(t)
	reg := claudeRegistry(t, "FAKE_CLAUDE_SCRIPT="+agenttest.ClaudeRecording(t, "bidi_perm_allow"), "FAKE_CLAUDE_LINE_DELAY=30ms")
	addTask(t, db, "t1", "claude-code", "touch a file")
	o1, err := New(Options{DB: db, Backends: reg, Emitter: newRecorder(t, db), Formats: agent.NewFormats(claude.Format()),
		Relays: &relay.Transport{Dir: rdir}, KeepOnQuit: true})
	if err != nil {
		t.Fatal(err)
	}
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
	if tr := loadTask(t, db, "t1"); tr.StatusReason != ReasonKept {
		t.Fatalf("after quit-keep: %s %q", tr.Status, tr.StatusReason)
	}
	time.Sleep(500 * time.Millisecond) // the agent asks while nobody is there

	o2 := relayOrchestrator(t, db, rdir, false)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusWaiting)
	reqs, _ := o2.PendingRequests(ctx, "t1")
	if len(reqs) != 1 || reqs[0].Request.ToolName != "Bash" {
		t.Fatalf("pending after restart %+v", reqs)
	}
	if err := o2.RespondToPermission(ctx, "t1", reqs[0].RequestID, PermissionAnswer{Behavior: agent.Allow}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusCompleted)
	if err := o2.SendMessage(ctx, "t1", "and one more"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the follow-up answered", func() bool {
		tr := loadTask(t, db, "t1")
		var n int
		_ = db.R.QueryRow(`SELECT COUNT(*) FROM agent_messages WHERE taskId = 't1' AND normalizedData LIKE '%and one more%'`).Scan(&n)
		return tr.Status == store.StatusCompleted && n > 0
	})
	checkTranscriptMatchesRaw(t, db, "t1")
}

// waitLong is waitFor with room for -race on a loaded machine (a whole
// recorded turn is stored after the adoption).
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// Stop of an adopted agent that wrote a backlog while no app was there (the
// relay's window applies only to an attached app, so the journal grew
// unbounded by it): the app stores the backlog before the relay reports the
// exit, which takes longer than StopTimeout here; Stop waits on while frames
// are stored and returns no error once the task ended; the task is no longer
// running, every stored frame is the agent's own, in order, and no frame the
// relay journaled before the Stop is missing; then the relay, its files, the
// agent and the agent's own child are all gone.
func TestRelayStopAdoptedWithBacklog(t *testing.T) {
	dir := t.TempDir()
	dbPath, outLog, rdir := filepath.Join(dir, "app.db"), filepath.Join(dir, "agent.out"), relayDir(t)
	db := openDBAt(t, dbPath)
	addTask(t, db, "t1", "claude-code", "long job")
	killChildAppMidStream(t, dbPath, rdir, outLog, "100000", "0s", 30) // a flood: ~30 MB the relay journals while no app is there

	metas, err := relay.List(rdir)
	if err != nil || len(metas) != 1 || !metas[0].Alive() {
		t.Fatalf("relays after the app died: %+v %v", metas, err)
	}
	time.Sleep(time.Second) // the agent journals on without an app
	journaled := 0
	_, _ = relay.ReadJournal(metas[0].Journal, 1, func(relay.Record) error { journaled++; return nil })
	stored, _ := store.CountRawFrames(context.Background(), db.R, "t1")
	if journaled < stored+1000 {
		t.Fatalf("no backlog to test: %d frames journaled, %d stored", journaled, stored)
	}

	// A StopTimeout shorter than storing the backlog takes (~10 s at this
	// test's ~10k frames/s): Stop waits on while frames are being stored.
	o, err := New(Options{DB: db, Backends: claudeRegistry(t), Emitter: newRecorder(t, db), Formats: agent.NewFormats(claude.Format()),
		Relays: &relay.Transport{Dir: rdir}, StopTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	if _, err := o.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := o.Stop(context.Background(), "t1"); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	took := time.Since(t0)
	tr := loadTask(t, db, "t1")
	frames, _ := store.CountRawFrames(context.Background(), db.R, "t1")
	t.Logf("backlog %d frames (%d stored before); Stop took %v; status %s %q; %d frames stored", journaled-stored, stored, took, tr.Status, tr.StatusReason, frames)
	if tr.Status == store.StatusRunning || tr.Status == store.StatusWaiting {
		t.Fatalf("status after Stop = %s", tr.Status)
	}
	if frames < journaled {
		t.Fatalf("stored %d frames; the relay had journaled %d before the Stop", frames, journaled)
	}
	want, err := os.ReadFile(outLog)
	if err != nil {
		t.Fatal(err)
	}
	if got := rawStream(t, db, "t1"); !bytes.HasPrefix(want, got) {
		t.Fatalf("the stored frames (%d bytes) are not what the agent wrote, in order (%d bytes)", len(got), len(want))
	}
	checkTranscriptMatchesRaw(t, db, "t1")
	waitFor(t, "relay and its files gone", func() bool { ms, _ := relay.List(rdir); return len(ms) == 0 && !metas[0].Alive() })
	waitFor(t, "the agent's process group gone", func() bool {
		for _, p := range procs(t) {
			if p.PGID == metas[0].AgentPID {
				return false
			}
		}
		return true
	})
}
