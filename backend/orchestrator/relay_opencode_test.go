package orchestrator

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// openCodeRelayed is the OpenCode backend of the relay tests: the fake
// server behind relays in rdir.
func openCodeRelayed(db *store.DB, bin, rdir, pidfile, script string) *agent.Registry {
	reg := agent.NewRegistry()
	reg.Register(opencode.New(opencode.Options{Binary: bin, Recorder: &store.ProcessLog{DB: db},
		Env:    map[string]string{"FAKE_OC_PIDFILE": pidfile, "FAKE_OC_SCRIPT": script},
		Relays: &relay.Transport{Dir: rdir}}))
	return reg
}

// childOpenCodeRelayApp is the app of TestRelayOpenCodeServerAdoptedAfterCrash:
// it starts task t1 on OpenCode with relays on and says READY once the
// task waits for a permission; then it waits to be killed.
func childOpenCodeRelayApp(rdir string) int {
	ctx := context.Background()
	db, err := store.Open(ctx, os.Getenv("CHILD_DB"), store.Options{})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	reg := openCodeRelayed(db, os.Getenv(childOpenCodeEnv), rdir, os.Getenv("CHILD_PIDFILE"), os.Getenv("CHILD_SCRIPT"))
	o, err := New(Options{DB: db, Backends: reg, Emitter: EmitterFunc(func(string, any) {}),
		Formats: agent.NewFormats(opencode.Format()), Relays: &relay.Transport{Dir: rdir}})
	if err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	if err := o.Start(ctx, "t1"); err != nil {
		fmt.Println("ERR", err)
		return 1
	}
	for {
		if tr, err := store.LoadTaskRun(ctx, db.R, "t1"); err == nil && tr.Status == store.StatusWaiting {
			fmt.Println("READY")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// crashedOpenCodeApp is what crashOpenCodeApp leaves.
type crashedOpenCodeApp struct {
	db                                 *store.DB
	dbPath, pidfile, rdir, script, bin string
}

// restart is the next app on the crashed one's database and relays (not
// yet recovered; closed when the test ends) and its backends.
func (c crashedOpenCodeApp) restart(t *testing.T) (*Orchestrator, *agent.Registry) {
	t.Helper()
	reg := openCodeRelayed(c.db, c.bin, c.rdir, c.pidfile, c.script)
	o, err := New(Options{DB: c.db, Backends: reg, Emitter: newRecorder(t, c.db),
		Formats: agent.NewFormats(opencode.Format()), Relays: &relay.Transport{Dir: c.rdir}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()) })
	return o, reg
}

// crashOpenCodeApp runs childOpenCodeRelayApp (task t1 on the relayed fake
// OpenCode server, serve-perm.sse) until its task waits for a permission,
// then kills it with SIGKILL.
func crashOpenCodeApp(t *testing.T) crashedOpenCodeApp {
	t.Helper()
	dir := t.TempDir()
	c := crashedOpenCodeApp{dbPath: filepath.Join(dir, "app.db"), pidfile: filepath.Join(dir, "pids"), rdir: relayDir(t)}
	c.db = openDBAt(t, c.dbPath)
	addTask(t, c.db, "t1", "opencode", "touch a file")
	var err error
	if c.script, err = filepath.Abs("../agent/opencode/testdata/serve-perm.sse"); err != nil {
		t.Fatal(err)
	}
	c.bin = buildFakeOpenCode(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childOpenCodeEnv+"="+c.bin, "CHILD_DB="+c.dbPath,
		"CHILD_PIDFILE="+c.pidfile, "CHILD_SCRIPT="+c.script, "CHILD_OC_RELAY_DIR="+c.rdir)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || sc.Text() != "READY" {
		_ = cmd.Process.Kill()
		t.Fatalf("child app: %q", sc.Text())
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	return c
}

// TestRelayOpenCodeServerAdoptedAfterCrash: with relays on, the shared
// `opencode serve` runs behind a relay; kill -9 of the app mid-turn (a
// permission pending) leaves it running, its port and password only in the
// relay's meta file (0600; not in the database); the next start adopts the
// server (no second server), continues the task ("continued after
// restart"), the permission is answered, the turn completes; quit "stop"
// ends the server and its relay.
func TestRelayOpenCodeServerAdoptedAfterCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a helper binary")
	}
	c := crashOpenCodeApp(t)
	db, dbPath, pidfile, rdir := c.db, c.dbPath, c.pidfile, c.rdir
	pids := serverPIDs(t, pidfile)
	checkServerLeftRunning(t, db, dbPath, rdir, pids)

	ctx := context.Background()
	o, reg := c.restart(t)
	if n, err := o.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("recover: %d interrupted, %v", n, err)
	}
	checkContinued(t, db)
	waitStatus(t, db, "t1", store.StatusWaiting)
	reqs, _ := o.PendingRequests(ctx, "t1")
	if len(reqs) != 1 || reqs[0].Request.ToolName == "" {
		t.Fatalf("pending after restart: %+v", reqs)
	}
	// The permission asked before the crash, then the turn's second one.
	answered := map[string]bool{}
	waitFor(t, "the turn to complete, each permission answered", func() bool {
		reqs, _ := o.PendingRequests(ctx, "t1")
		for _, r := range reqs {
			if !answered[r.RequestID] {
				answered[r.RequestID] = true
				if err := o.RespondToPermission(ctx, "t1", r.RequestID, PermissionAnswer{Behavior: agent.Allow}); err != nil {
					t.Fatal(err)
				}
			}
		}
		return loadTask(t, db, "t1").Status == store.StatusCompleted
	})
	if len(answered) != 2 {
		t.Fatalf("answered %d permissions, the script asks 2", len(answered))
	}
	if again := serverPIDs(t, pidfile); len(again) != 2 {
		t.Fatalf("a second server was started: %v", again)
	}
	if err := o.Close(ctx); err != nil { // quit "stop", then the backends go (as in the app)
		t.Fatal(err)
	}
	if err := reg.Dispose(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server, its child and its relay to end", func() bool {
		return !proc.Alive(pids[0]) && !proc.Alive(pids[1]) && len(relaysLeft(t, rdir)) == 0
	})
}

// serverPIDs reads the fake servers' pids (server, child, per start).
func serverPIDs(t *testing.T, pidfile string) []int {
	t.Helper()
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		pids = append(pids, n)
	}
	return pids
}

// checkServerLeftRunning: after the app's kill -9 the server and its child
// run on behind a relay whose meta holds the port and password; the server
// is not in app_processes (the next start's clean-up would kill it) and its
// password is nowhere in the database files.
func checkServerLeftRunning(t *testing.T, db *store.DB, dbPath, rdir string, pids []int) {
	t.Helper()
	if len(pids) != 2 {
		t.Fatalf("server pids %v", pids)
	}
	time.Sleep(200 * time.Millisecond)
	for _, p := range pids {
		if !proc.Alive(p) {
			t.Fatalf("process %d died with the app", p)
		}
	}
	metas, _ := relay.List(rdir)
	if len(metas) != 1 || metas[0].Role != "opencode-server" || metas[0].TaskID != "" || metas[0].AgentPID != pids[0] || !metas[0].Alive() {
		t.Fatalf("relays: %+v, want the server %d's", metas, pids[0])
	}
	pw := metas[0].Extra["password"]
	if len(pw) < 16 || metas[0].Extra["port"] == "" {
		t.Fatalf("meta extra %v", metas[0].Extra)
	}
	if st, err := os.Stat(filepath.Join(rdir, metas[0].ID+".json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("meta file: %v %v", st, err)
	}
	if ps, _ := store.AppProcesses(context.Background(), db.R); len(ps) != 0 {
		t.Fatalf("recorded processes: %+v", ps)
	}
	for _, f := range []string{dbPath, dbPath + "-wal"} {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(pw)) {
			t.Fatalf("the server's password is in %s", f)
		}
	}
}

// TestRelayOpenCodeQuitKeepThenContinue: quit with "keep" while an OpenCode
// turn waits for a permission: the session is detached (not aborted), the
// backend's Dispose leaves the relayed server running; the next app adopts
// it, the permission is answered and the turn completes on the same server.
func TestRelayOpenCodeQuitKeepThenContinue(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a helper binary")
	}
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pids")
	db := openDB(t)
	rdir := relayDir(t)
	addTask(t, db, "t1", "opencode", "touch a file")
	script, err := filepath.Abs("../agent/opencode/testdata/serve-perm.sse")
	if err != nil {
		t.Fatal(err)
	}
	bin := buildFakeOpenCode(t)
	ctx := context.Background()
	start := func(keep bool) (*Orchestrator, *agent.Registry) {
		reg := openCodeRelayed(db, bin, rdir, pidfile, script)
		o, err := New(Options{DB: db, Backends: reg, Emitter: newRecorder(t, db), KeepOnQuit: keep,
			Formats: agent.NewFormats(opencode.Format()), Relays: &relay.Transport{Dir: rdir}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = o.Close(context.Background()); _ = reg.Dispose(context.Background()) })
		return o, reg
	}
	o1, reg1 := start(true)
	if err := o1.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusWaiting)
	if err := o1.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := reg1.Dispose(ctx); err != nil {
		t.Fatal(err)
	}
	if tr := loadTask(t, db, "t1"); tr.StatusReason != ReasonKept {
		t.Fatalf("after quit-keep: %s %q", tr.Status, tr.StatusReason)
	}
	pids := serverPIDs(t, pidfile)
	time.Sleep(200 * time.Millisecond)
	if len(pids) != 2 || !proc.Alive(pids[0]) || !proc.Alive(pids[1]) {
		t.Fatalf("the server did not outlive the quit with keep: %v", pids)
	}

	o2, reg2 := start(false)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	checkContinued(t, db)
	answered := map[string]bool{}
	waitFor(t, "the turn to complete, each permission answered", func() bool {
		reqs, _ := o2.PendingRequests(ctx, "t1")
		for _, r := range reqs {
			if !answered[r.RequestID] {
				answered[r.RequestID] = true
				if err := o2.RespondToPermission(ctx, "t1", r.RequestID, PermissionAnswer{Behavior: agent.Allow}); err != nil {
					t.Fatal(err)
				}
			}
		}
		return loadTask(t, db, "t1").Status == store.StatusCompleted
	})
	if len(answered) != 2 || len(serverPIDs(t, pidfile)) != 2 {
		t.Fatalf("answered %d permissions (want 2); server pids %v", len(answered), serverPIDs(t, pidfile))
	}
	if err := o2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := reg2.Dispose(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server, its child and its relay to end", func() bool {
		return !proc.Alive(pids[0]) && !proc.Alive(pids[1]) && len(relaysLeft(t, rdir)) == 0
	})
}

// checkContinued: after the restart the task runs on ("continued after
// restart"), or already waits again on the permission the catch-up
// delivered (which replaces the reason); not interrupted.
func checkContinued(t *testing.T, db *store.DB) {
	t.Helper()
	tr := loadTask(t, db, "t1")
	if !(tr.Status == store.StatusRunning && tr.StatusReason == ReasonContinued || tr.Status == store.StatusWaiting) {
		t.Fatalf("after restart: %s %q", tr.Status, tr.StatusReason)
	}
}

// TestRelayOpenCodePermissionAnsweredElsewhereWhileAway: the app is killed
// while an OpenCode turn waits for a permission; another client of the
// server (the OpenCode TUI, here the test) answers it meanwhile. The next
// start adopts the server and withdraws that request (it is no longer
// pending there) instead of showing it until the turn ends; the turn's
// next permission is shown, answered here, and the turn completes.
func TestRelayOpenCodePermissionAnsweredElsewhereWhileAway(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a helper binary")
	}
	c := crashOpenCodeApp(t)
	db, rdir := c.db, c.rdir
	ctx := context.Background()
	before, err := store.ListPending(ctx, db.R, "t1")
	if err != nil || len(before) != 1 {
		t.Fatalf("pending when the app died: %+v %v", before, err)
	}
	first := before[0].RequestID
	replyElsewhere(t, rdir, first)

	o, _ := c.restart(t)
	if _, err := o.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	var second string
	waitFor(t, "the request answered elsewhere withdrawn and the turn's next one shown", func() bool {
		reqs, _ := o.PendingRequests(ctx, "t1")
		for _, r := range reqs {
			if r.RequestID == first {
				return false
			}
			second = r.RequestID
		}
		return second != ""
	})
	if err := o.RespondToPermission(ctx, "t1", second, PermissionAnswer{Behavior: agent.Allow}); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusCompleted)
	if reqs, _ := o.PendingRequests(ctx, "t1"); len(reqs) != 0 {
		t.Fatalf("pending after the turn: %+v", reqs)
	}
}

// replyElsewhere answers permission id on the relayed fake server as
// another client of it would (its port and password from the relay's meta).
func replyElsewhere(t *testing.T, rdir, id string) {
	t.Helper()
	metas, _ := relay.List(rdir)
	var port, pw string
	for _, m := range metas {
		if m.Role == "opencode-server" {
			port, pw = m.Extra["port"], m.Extra["password"]
		}
	}
	if port == "" {
		t.Fatalf("no relayed server in %+v", metas)
	}
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+port+"/permission/"+id+"/reply", strings.NewReader(`{"reply":"once"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("opencode", pw)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reply elsewhere: %s", resp.Status)
	}
}

// TestRelayOpenCodePermissionAnsweredElsewhereLive: another client of the
// server answers a permission the app shows: the app drops it (the task
// runs again) instead of showing it until the turn ends.
func TestRelayOpenCodePermissionAnsweredElsewhereLive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a helper binary")
	}
	pidfile := filepath.Join(t.TempDir(), "pids")
	db := openDB(t)
	rdir := relayDir(t)
	addTask(t, db, "t1", "opencode", "touch a file")
	script, err := filepath.Abs("../agent/opencode/testdata/serve-perm.sse")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reg := openCodeRelayed(db, buildFakeOpenCode(t), rdir, pidfile, script)
	o, err := New(Options{DB: db, Backends: reg, Emitter: newRecorder(t, db),
		Formats: agent.NewFormats(opencode.Format()), Relays: &relay.Transport{Dir: rdir}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = o.Close(context.Background()); _ = reg.Dispose(context.Background()) })
	if err := o.Start(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, db, "t1", store.StatusWaiting)
	reqs, _ := o.PendingRequests(ctx, "t1")
	if len(reqs) != 1 {
		t.Fatalf("pending: %+v", reqs)
	}
	first := reqs[0].RequestID
	replyElsewhere(t, rdir, first)
	waitFor(t, "the permission answered elsewhere dropped", func() bool {
		reqs, _ := o.PendingRequests(ctx, "t1")
		return len(reqs) == 0 || reqs[0].RequestID != first
	})
	if err := o.Stop(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
}
