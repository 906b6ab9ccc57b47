package remote_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
	"github.com/jean-claude/jean-claude/backend/store"
)

// A remote project's task on OpenCode: the fake `opencode serve` (the
// opencode package's, installed in the host's ~/.local/bin; the backend's
// binary does not exist here) runs on the host behind a relay, its
// password only in its environment there (not on its command line, not on
// the host's disk); the app reaches its HTTP and SSE through the ssh
// connection. While the first permission waits the host goes away (every
// ssh process killed, the listener stopped) and comes back: the event
// stream reconnects, both permissions are answered, the turn completes.
// Stop and the backend's Dispose (the app's quit) end the server, its
// child and its relay on the host, and every ssh process here.
func TestOrchestratorRemoteOpenCodeTask(t *testing.T) {
	e := newHostEnv(t)
	fake := installOnHost(t, e.srv, buildFake(t, "backend/agent/opencode/testdata/fakeopencode", "opencode"))
	script, err := filepath.Abs("../agent/opencode/testdata/serve-perm.sse")
	must(t, err)
	pidfile, reqlog := filepath.Join(e.srv.Home, "oc-pids"), filepath.Join(e.srv.Home, "oc-requests")
	// The app's generated config is a file here: it reaches the host by value.
	config := filepath.Join(t.TempDir(), "opencode.json")
	must(t, os.WriteFile(config, []byte(`{"model":"fake/`+e.secret+`"}`), 0o600))
	b := opencode.New(opencode.Options{Binary: "/nowhere/" + fake, ReconnectMin: 100 * time.Millisecond, ReconnectMax: time.Second,
		Env: map[string]string{"FAKE_OC_SCRIPT": script, "FAKE_OC_PIDFILE": pidfile, "JC_TEST_SECRET": e.secret, "OPENCODE_CONFIG": config,
			"FAKE_OC_LOG": reqlog}})
	e.reg.Register(b)
	ctx := context.Background()
	o := e.orchestrator(t, false)
	defer o.Close(ctx)
	id := e.startTaskWith(t, o, agent.BackendOpenCode, "touch a file")
	waitTask(t, e.db, id, "the first permission", func(tr store.TaskRun) bool { return tr.Status == store.StatusWaiting })

	pids := hostPIDs(t, pidfile)
	checkServerOnHost(t, e, pids[0])
	// The event stream is open through the ssh connection (the sshd's
	// "host" shares this machine's loopback: only this shows the way).
	if fwd := forwards(e); len(fwd) == 0 {
		t.Fatal("no ssh -W forward open while the session follows its events")
	} else {
		t.Logf("forwards: %v", fwd)
	}

	l := killSSH(t, e.srv) // the host goes away while the permission waits
	// The server's link is down: its task says so (the link belongs to no
	// task, the banner to every task served there), and no more once back.
	tr := waitTask(t, e.db, id, "host unreachable", func(tr store.TaskRun) bool {
		return strings.HasPrefix(tr.StatusReason, "host unreachable since ")
	})
	t.Logf("while the host is away: %s %q", tr.Status, tr.StatusReason)
	must(t, syscall.Kill(l, syscall.SIGCONT))
	waitTask(t, e.db, id, "the banner gone once the host is back", func(tr store.TaskRun) bool {
		return !strings.HasPrefix(tr.StatusReason, "host unreachable since ")
	})
	answered := map[string]bool{}
	waitTask(t, e.db, id, "the turn to complete, each permission answered", func(tr store.TaskRun) bool {
		reqs, _ := o.PendingRequests(ctx, id)
		for _, r := range reqs {
			if !answered[r.RequestID] {
				if err := o.RespondToPermission(ctx, id, r.RequestID, orchestrator.PermissionAnswer{Behavior: agent.Allow}); err == nil {
					answered[r.RequestID] = true
				} else {
					t.Logf("answer (retried): %v", err)
				}
			}
		}
		return tr.Status == store.StatusCompleted
	})
	if len(answered) != 2 {
		t.Fatalf("answered %d permissions, the script asks 2", len(answered))
	}
	if again := hostPIDs(t, pidfile); len(again) != 2 {
		t.Fatalf("a second server was started: %v", again)
	}
	if !strings.Contains(storedFrames(t, e, id), `"type":"permission.replied"`) {
		t.Fatal("no permission.replied stored")
	}
	// Stop while the host is away: the abort reaches the server once it is
	// back (a follow-up's turn plays meanwhile).
	must(t, o.SendMessage(ctx, id, "once more"))
	waitTask(t, e.db, id, "the follow-up's turn", func(tr store.TaskRun) bool { return tr.Status == store.StatusWaiting })
	tr, err = store.LoadTaskRun(ctx, e.db.R, id)
	must(t, err)
	abort := "POST /session/" + tr.SessionID + "/abort"
	l = killSSH(t, e.srv)
	must(t, o.Stop(ctx, id))
	time.Sleep(time.Second)
	if b, _ := os.ReadFile(reqlog); strings.Contains(string(b), abort) {
		t.Fatal("the abort reached the server while the host was away")
	}
	must(t, syscall.Kill(l, syscall.SIGCONT))
	deadline := time.Now().Add(30 * time.Second)
	for b, _ := os.ReadFile(reqlog); !strings.Contains(string(b), abort); b, _ = os.ReadFile(reqlog) {
		if time.Now().After(deadline) {
			t.Fatal("the abort asked while the host was away never reached the server")
		}
		time.Sleep(100 * time.Millisecond)
	}
	must(t, o.Close(ctx))
	must(t, e.reg.Dispose(ctx)) // the app's quit: the backends go
	if left := e.srv.WaitNoRemoteProcesses(ctx, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host: %v", left)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		fwd := forwards(e)
		if len(fwd) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ssh forwards left here: %v", fwd)
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitTask(t, e.db, id, "the relay's files gone", func(store.TaskRun) bool {
		m, _ := filepath.Glob(filepath.Join(e.srv.Home, ".cache", "jean-claude", "relays", "*"))
		return len(m) == 0
	})
}

// hostPIDs reads the fake server's pid file: the server, then its child.
func hostPIDs(t *testing.T, pidfile string) []int {
	t.Helper()
	b, err := os.ReadFile(pidfile)
	must(t, err)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		must(t, err)
		pids = append(pids, n)
	}
	return pids
}

// checkServerOnHost: the server runs in the host's session (its HOME),
// its password is in its environment only: not on its command line, not
// in any file under the host's HOME.
func checkServerOnHost(t *testing.T, e *remoteEnv, pid int) {
	t.Helper()
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	must(t, err)
	var password string
	for _, kv := range strings.Split(string(env), "\x00") {
		if v, ok := strings.CutPrefix(kv, "OPENCODE_SERVER_PASSWORD="); ok {
			password = v
		}
	}
	if !strings.Contains(string(env), "\x00HOME="+e.srv.Home+"\x00") && !strings.HasPrefix(string(env), "HOME="+e.srv.Home+"\x00") {
		t.Fatalf("the server does not run in the host's session (HOME)")
	}
	if len(password) < 16 {
		t.Fatalf("server password %q", password)
	}
	if !strings.Contains(string(env), "\x00OPENCODE_CONFIG_CONTENT={\"model\":\"fake/"+e.secret+"\"}\x00") || strings.Contains(string(env), "\x00OPENCODE_CONFIG=") {
		t.Fatal("the app's OpenCode config did not reach the server by value")
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	must(t, err)
	if strings.Contains(string(cmdline), password) {
		t.Fatal("the password is on the server's command line")
	}
	if hits := grepTree(e.srv.Home, password); len(hits) > 0 {
		t.Fatalf("the password was written on the host: %v", hits)
	}
	if hits := grepTree(e.srv.Home, e.secret); len(hits) > 0 {
		t.Fatalf("the secret was written on the host: %v", hits)
	}
}

// forwards are the local `ssh -W 127.0.0.1:PORT` processes of the pool.
func forwards(e *remoteEnv) []string {
	var fwd []string
	for _, p := range sshdtest.LocalProcessesMatching(e.srv.ControlDir) {
		if strings.Contains(p, " -W 127.0.0.1:") {
			fwd = append(fwd, p)
		}
	}
	return fwd
}
