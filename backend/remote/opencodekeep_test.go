package remote_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/workspace"
)

// ocHost is the fake `opencode serve` installed on the host, and where
// the apps of a test record their host servers (their data dir).
type ocHost struct {
	fake, script, pidfile, records string
}

func newOCHost(t *testing.T, e *remoteEnv) ocHost {
	fake := installOnHost(t, e.srv, buildFake(t, "backend/agent/opencode/testdata/fakeopencode", "opencode"))
	script, err := filepath.Abs("../agent/opencode/testdata/serve-perm.sse")
	must(t, err)
	return ocHost{fake: fake, script: script, pidfile: filepath.Join(e.srv.Home, "oc-pids"),
		records: filepath.Join(t.TempDir(), "opencode-hosts")}
}

// app is one app's OpenCode backend (its registry becomes e.reg) and its
// orchestrator on pool. reconnect bounds the event stream's reconnects.
func (oc ocHost) app(t *testing.T, e *remoteEnv, pool *remote.Pool, keep bool, reconnect time.Duration) (*orchestrator.Orchestrator, *agent.Registry) {
	e.reg = agent.NewRegistry()
	e.reg.Register(opencode.New(opencode.Options{Binary: "/nowhere/" + oc.fake, ReconnectMin: reconnect, ReconnectMax: reconnect,
		HostServers: oc.records, Env: map[string]string{"FAKE_OC_SCRIPT": oc.script, "FAKE_OC_PIDFILE": oc.pidfile}}))
	return e.orchestratorOn(t, pool, keep), e.reg
}

// appPool is the ssh connections of an app of its own (under the server's
// control folder, so the process checks see them).
func appPool(t *testing.T, e *remoteEnv, name string) *remote.Pool {
	pool, err := remote.NewPool(remote.Options{ConfigFile: e.srv.ConfigFile, ControlDir: filepath.Join(e.srv.ControlDir, name), ConnectTimeout: time.Second})
	must(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// answerTurn answers every permission the turn asks until it completes;
// it returns how many it answered.
func answerTurn(t *testing.T, e *remoteEnv, o *orchestrator.Orchestrator, id string, skip ...string) int {
	ctx := context.Background()
	answered := map[string]bool{}
	for _, s := range skip {
		answered[s] = true
	}
	waitTask(t, e.db, id, "the turn to complete, each permission answered", func(tr store.TaskRun) bool {
		reqs, _ := o.PendingRequests(ctx, id)
		for _, r := range reqs {
			if !answered[r.RequestID] {
				t.Logf("answering %s (%s)", r.RequestID, r.Request.ToolName)
			}
			if !answered[r.RequestID] && o.RespondToPermission(ctx, id, r.RequestID, orchestrator.PermissionAnswer{Behavior: agent.Allow}) == nil {
				answered[r.RequestID] = true
			}
		}
		return tr.Status == store.StatusCompleted
	})
	return len(answered) - len(skip)
}

// checkServerRecorded: the server's port and password are recorded here
// (one file, 0600, in a 0700 folder), nowhere in the database; the server
// and its child still run on the host.
func checkServerRecorded(t *testing.T, e *remoteEnv, oc ocHost, pids []int) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	if len(pids) != 2 {
		t.Fatalf("server pids %v", pids)
	}
	for _, p := range pids {
		if syscall.Kill(p, 0) != nil {
			t.Fatalf("process %d on the host did not outlive the app", p)
		}
	}
	recs, _ := filepath.Glob(filepath.Join(oc.records, "*.json"))
	if len(recs) != 1 {
		t.Fatalf("host server records: %v", recs)
	}
	if st, err := os.Stat(recs[0]); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("record: %v %v", st, err)
	}
	if st, err := os.Stat(oc.records); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("records folder: %v %v", st, err)
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pids[0]))
	must(t, err)
	var pw string
	for _, kv := range strings.Split(string(env), "\x00") {
		if v, ok := strings.CutPrefix(kv, "OPENCODE_SERVER_PASSWORD="); ok {
			pw = v
		}
	}
	rec, err := os.ReadFile(recs[0])
	must(t, err)
	if len(pw) < 16 || !bytes.Contains(rec, []byte(`"password":"`+pw+`"`)) {
		t.Fatalf("the record does not hold the server's password")
	}
	for _, f := range []string{e.db.Path, e.db.Path + "-wal"} {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(pw)) {
			t.Fatalf("the server's password is in %s", f)
		}
	}
	if hits := grepTree(e.srv.Home, pw); len(hits) > 0 {
		t.Fatalf("the password was written on the host: %v", hits)
	}
}

// quitStopLeavesNothing: the app quits with "stop": the server, its child
// and its relay end on the host, its record here is removed.
func quitStopLeavesNothing(t *testing.T, e *remoteEnv, oc ocHost, o *orchestrator.Orchestrator, reg *agent.Registry) {
	t.Helper()
	ctx := context.Background()
	must(t, o.Close(ctx))
	must(t, reg.Dispose(ctx))
	if left := e.srv.WaitNoRemoteProcesses(ctx, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host: %v", left)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(e.srv.Home, ".cache", "jean-claude", "relays", "*"))
		r, _ := filepath.Glob(filepath.Join(oc.records, "*"))
		if len(m) == 0 && len(r) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("left: relay files %v, records %v", m, r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The app quits with "keep" while an OpenCode turn on the host waits for a
// permission: the session is detached, the host's server (and its child)
// run on there, its port and password recorded here only; the next app
// adopts it at start (no second server), the permission asked before the
// quit is answered, the turn completes, a follow-up's turn too; quit with
// "stop" then leaves nothing on the host.
func TestRemoteOpenCodeKeptAtQuitAdoptedAtStart(t *testing.T) {
	e := newHostEnv(t)
	oc := newOCHost(t, e)
	ctx := context.Background()
	pool1 := appPool(t, e, "a1")
	o1, reg1 := oc.app(t, e, pool1, true, 100*time.Millisecond)
	id := e.startTaskWith(t, o1, agent.BackendOpenCode, "touch a file")
	waitTask(t, e.db, id, "the first permission", func(tr store.TaskRun) bool { return tr.Status == store.StatusWaiting })
	must(t, o1.Close(ctx))
	must(t, reg1.Dispose(ctx))
	pool1.Close() // the app's exit
	if tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true }); tr.StatusReason != orchestrator.ReasonKept {
		t.Fatalf("after quit-keep: %s %q", tr.Status, tr.StatusReason)
	}
	pids := hostPIDs(t, oc.pidfile)
	checkServerRecorded(t, e, oc, pids)

	o2, reg2 := oc.app(t, e, e.pool, false, 100*time.Millisecond)
	if n, err := o2.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("recover: %d interrupted, %v", n, err)
	}
	if n := answerTurn(t, e, o2, id); n != 2 {
		t.Fatalf("answered %d permissions, the script asks 2", n)
	}
	must(t, o2.SendMessage(ctx, id, "once more"))
	waitTask(t, e.db, id, "the follow-up's turn", func(tr store.TaskRun) bool { return tr.Status != store.StatusCompleted })
	if n := answerTurn(t, e, o2, id); n == 0 {
		t.Fatal("the follow-up's turn asked nothing")
	}
	if again := hostPIDs(t, oc.pidfile); len(again) != 2 {
		t.Fatalf("a second server was started: %v", again)
	}
	quitStopLeavesNothing(t, e, oc, o2, reg2)
}

// The app crashes (kill -9 of a child process running it) while an
// OpenCode turn on the host waits for a permission; its ssh processes
// are killed too (its master ends with it). The server runs on on the
// host; while no app is there the first permission is answered by another
// client of the server and the turn asks the second. The next app adopts
// the server at start from the record, the session catches up: the
// permission asked meanwhile is shown and answered, the turn completes on
// the same server; quit "stop" leaves nothing there.
func TestRemoteOpenCodeServerAdoptedAfterCrash(t *testing.T) {
	e := newHostEnv(t)
	oc := newOCHost(t, e)
	ctx := context.Background()
	tk, err := store.CreateTask(ctx, e.db.W, store.NewTask{ProjectID: e.projectID, Name: "remote work", Prompt: "touch a file",
		AgentBackend: agent.BackendOpenCode, InteractionMode: "ask"})
	must(t, err)
	id := tk.ID
	first := crashChildApp(t, e, oc, id)
	t.Logf("first: %s", first)
	time.Sleep(500 * time.Millisecond)
	if tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true }); tr.Status != store.StatusWaiting {
		t.Fatalf("as the crash left it: %s %q", tr.Status, tr.StatusReason)
	}
	pids := hostPIDs(t, oc.pidfile)
	checkServerRecorded(t, e, oc, pids)
	// While no app is there the turn goes on: the first permission is
	// answered by another client of the server, the second one is asked.
	serverPOST(t, oc, "/permission/"+first+"/reply", `{"reply":"once"}`)
	waitUntil(t, "the second permission, asked while the app is away", func() bool {
		return strings.Contains(serverGET(t, oc, "/permission"), `"id":"`) && !strings.Contains(serverGET(t, oc, "/permission"), first)
	})

	o2, reg2 := oc.app(t, e, e.pool, false, 100*time.Millisecond)
	t.Cleanup(func() { _ = o2.Close(ctx); _ = reg2.Dispose(ctx) })
	if n, err := o2.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("recover: %d interrupted, %v", n, err)
	}
	tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true })
	if !(tr.Status == store.StatusRunning && tr.StatusReason == orchestrator.ReasonContinued || tr.Status == store.StatusWaiting) {
		t.Fatalf("after restart: %s %q", tr.Status, tr.StatusReason)
	}
	// (The first one, answered by another client, still shows pending
	// here until the turn ends: docs/remote.md, "What is missing".)
	if n := answerTurn(t, e, o2, id, first); n != 1 {
		t.Fatalf("answered %d permissions: want the one asked while the app was away", n)
	}
	if reqs, _ := o2.PendingRequests(ctx, id); len(reqs) != 0 {
		t.Fatalf("pending after the turn: %+v", reqs)
	}
	if again := hostPIDs(t, oc.pidfile); len(again) != 2 {
		t.Fatalf("a second server was started: %v", again)
	}
	quitStopLeavesNothing(t, e, oc, o2, reg2)
}

// serverRecord is the one recorded host server's port and password.
func serverRecord(t *testing.T, oc ocHost) (int, string) {
	recs, _ := filepath.Glob(filepath.Join(oc.records, "*.json"))
	if len(recs) != 1 {
		t.Fatalf("records %v", recs)
	}
	b, err := os.ReadFile(recs[0])
	must(t, err)
	var r struct {
		Port     int
		Password string
	}
	must(t, json.Unmarshal(b, &r))
	return r.Port, r.Password
}

// serverDo speaks to the host's server directly (the test's "host" shares
// this machine's loopback), as another client of it would.
func serverDo(t *testing.T, oc ocHost, method, path, body string) string {
	port, pw := serverRecord(t, oc)
	req, err := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), strings.NewReader(body))
	must(t, err)
	req.SetBasicAuth("opencode", pw)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	must(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %s %s", method, path, res.Status, b)
	}
	return string(b)
}

func serverGET(t *testing.T, oc ocHost, path string) string { return serverDo(t, oc, "GET", path, "") }
func serverPOST(t *testing.T, oc ocHost, path, body string) {
	serverDo(t, oc, "POST", path, body)
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The app quits with "keep" while an OpenCode turn on the host waits for a
// permission, then the host goes away: the next app's start interrupts
// nothing, the task shows "host unreachable since …" while the host is
// asked again; once it answers, the server is adopted from its record,
// the session continues and the turn completes on the same server.
func TestRemoteOpenCodeHostUnreachableAtStart(t *testing.T) {
	e := newHostEnv(t)
	e.retry = orchestrator.HostRetry{Min: 200 * time.Millisecond, Max: time.Second, For: 5 * time.Minute}
	oc := newOCHost(t, e)
	ctx := context.Background()
	pool1 := appPool(t, e, "a1")
	o1, reg1 := oc.app(t, e, pool1, true, 100*time.Millisecond)
	id := e.startTaskWith(t, o1, agent.BackendOpenCode, "touch a file")
	waitTask(t, e.db, id, "the first permission", func(tr store.TaskRun) bool { return tr.Status == store.StatusWaiting })
	must(t, o1.Close(ctx))
	must(t, reg1.Dispose(ctx))
	pool1.Close()
	pids := hostPIDs(t, oc.pidfile)
	checkServerRecorded(t, e, oc, pids)
	l := killSSH(t, e.srv) // the host goes away

	o2, reg2 := oc.app(t, e, e.pool, false, 100*time.Millisecond)
	t.Cleanup(func() { _ = o2.Close(ctx); _ = reg2.Dispose(ctx) })
	if n, err := o2.Recover(ctx); err != nil || n != 0 {
		t.Fatalf("Recover = %d, %v; want no task interrupted", n, err)
	}
	tr := waitTask(t, e.db, id, "host unreachable", func(tr store.TaskRun) bool {
		return strings.HasPrefix(tr.StatusReason, "host unreachable since ")
	})
	if tr.Status != store.StatusRunning && tr.Status != store.StatusWaiting {
		t.Fatalf("while the host is away: %s %q", tr.Status, tr.StatusReason)
	}
	time.Sleep(2 * time.Second) // a few retries while the host is away
	must(t, syscall.Kill(l, syscall.SIGCONT))
	waitTask(t, e.db, id, "adopted once the host is back", func(tr store.TaskRun) bool {
		return !strings.HasPrefix(tr.StatusReason, "host unreachable since ")
	})
	if n := answerTurn(t, e, o2, id); n != 2 {
		t.Fatalf("answered %d permissions, the script asks 2", n)
	}
	if again := hostPIDs(t, oc.pidfile); len(again) != 2 {
		t.Fatalf("a second server was started: %v", again)
	}
	quitStopLeavesNothing(t, e, oc, o2, reg2)
}

// The app quits with "keep" while its OpenCode task on the host is idle
// (its turn completed): nothing is to be continued, so the host's server
// is stopped — its exit acknowledged before the app's connections close
// right after: no relay left waiting there — and its record removed; the
// task stays completed (a follow-up resumes its session on the next app's
// server: the real CLI keeps sessions on the host's disk, the fake does
// not).
func TestRemoteOpenCodeIdleServerNotKept(t *testing.T) {
	e := newHostEnv(t)
	oc := newOCHost(t, e)
	ctx := context.Background()
	pool1 := appPool(t, e, "a1")
	o1, reg1 := oc.app(t, e, pool1, true, 100*time.Millisecond)
	id := e.startTaskWith(t, o1, agent.BackendOpenCode, "touch a file")
	if n := answerTurn(t, e, o1, id); n != 2 {
		t.Fatalf("answered %d permissions, the script asks 2", n)
	}
	must(t, o1.Close(ctx))
	must(t, reg1.Dispose(ctx))
	pool1.Close() // at once, as the app's exit does
	if left := e.srv.WaitNoRemoteProcesses(ctx, 10*time.Second); len(left) > 0 {
		m, _ := filepath.Glob(filepath.Join(e.srv.Home, ".cache", "jean-claude", "relays", "*.json"))
		var metas []string
		for _, f := range m {
			b, _ := os.ReadFile(f)
			metas = append(metas, string(b))
		}
		t.Fatalf("processes left on the host after quitting with an idle task: %v\nrelays: %v", left, metas)
	}
	if m, _ := filepath.Glob(filepath.Join(e.srv.Home, ".cache", "jean-claude", "relays", "*")); len(m) > 0 {
		t.Fatalf("relay files left: %v", m)
	}
	if r, _ := filepath.Glob(filepath.Join(oc.records, "*")); len(r) > 0 {
		t.Fatalf("records left: %v", r)
	}
	if tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true }); tr.Status != store.StatusCompleted {
		t.Fatalf("after quit-keep: %s %q", tr.Status, tr.StatusReason)
	}
}

func init() { remote.ChildApp = childOpenCodeApp }

// crashChildApp runs task id in an app of its own (a child process: this
// test binary, childOpenCodeApp), kills it with SIGKILL once the task waits
// for its first permission, and kills what it left here (its ssh
// processes); it returns the pending permission's id.
func crashChildApp(t *testing.T, e *remoteEnv, oc ocHost, id string) string {
	control := filepath.Join(e.srv.ControlDir, "a1")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "JC_CHILD_APP=1", "CHILD_DB="+e.db.Path, "CHILD_SSH_CONFIG="+e.srv.ConfigFile,
		"CHILD_CONTROL_DIR="+control, "CHILD_TASK="+id, "CHILD_OC_FAKE="+oc.fake, "CHILD_OC_SCRIPT="+oc.script,
		"CHILD_OC_PIDFILE="+oc.pidfile, "CHILD_RECORDS="+oc.records, "CHILD_GIT_ENV="+strings.Join(e.gitEnv, "\n"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	sc := bufio.NewScanner(out)
	var first string
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "READY "); ok {
			first = v
			break
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if first == "" {
		t.Fatalf("child app: no READY\n%s", stderr.String())
	}
	for _, p := range sshdtest.LocalProcessesMatching(control) {
		var pid int
		if _, err := fmt.Sscan(p, &pid); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return first
}

// childOpenCodeApp is the app crashChildApp kills: its own ssh pool and
// orchestrator over the test's database, the fake OpenCode on the host,
// its host servers recorded in CHILD_RECORDS; it starts CHILD_TASK and
// says "READY <request id>" once the task waits for a permission.
func childOpenCodeApp() int {
	ctx := context.Background()
	fail := func(err error) int { fmt.Println("ERR", err); return 1 }
	db, err := store.Open(ctx, os.Getenv("CHILD_DB"), store.Options{})
	if err != nil {
		return fail(err)
	}
	pool, err := remote.NewPool(remote.Options{ConfigFile: os.Getenv("CHILD_SSH_CONFIG"), ControlDir: os.Getenv("CHILD_CONTROL_DIR"),
		ConnectTimeout: time.Second})
	if err != nil {
		return fail(err)
	}
	ws := workspace.New(db, nil, nil)
	ws.SetRemote(&remote.ProjectGits{Pool: pool, DB: db, Env: strings.Split(os.Getenv("CHILD_GIT_ENV"), "\n")})
	reg := agent.NewRegistry()
	reg.Register(opencode.New(opencode.Options{Binary: "/nowhere/" + os.Getenv("CHILD_OC_FAKE"), HostServers: os.Getenv("CHILD_RECORDS"),
		Env: map[string]string{"FAKE_OC_SCRIPT": os.Getenv("CHILD_OC_SCRIPT"), "FAKE_OC_PIDFILE": os.Getenv("CHILD_OC_PIDFILE")}}))
	hosts := &remote.Tasks{Pool: pool, DB: db, Tune: func(s *relay.Spec) { s.IdleStop, s.IdleExit = time.Minute, time.Minute }}
	o, err := orchestrator.New(orchestrator.Options{DB: db, Backends: reg, Formats: agent.NewFormats(opencode.Format()),
		Emitter: orchestrator.EmitterFunc(func(string, any) {}), Workspace: ws, Hosts: hosts})
	if err != nil {
		return fail(err)
	}
	id := os.Getenv("CHILD_TASK")
	if err := o.Start(ctx, id); err != nil {
		return fail(err)
	}
	for {
		if reqs, _ := o.PendingRequests(ctx, id); len(reqs) == 1 {
			fmt.Println("READY " + reqs[0].RequestID)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
