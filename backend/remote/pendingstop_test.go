package remote_test

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/orchestrator"
	"github.com/jean-claude/jean-claude/backend/remote"
	"github.com/jean-claude/jean-claude/backend/store"
)

// firstApp is the app that loses its host: its own ssh connections (a
// control folder under the server's, so the process checks see them), a
// quick StopTimeout, stops stored; the task streams on the host.
func firstApp(t *testing.T) (*remoteEnv, *remote.Pool) {
	e := newRemoteEnv(t)
	e.stops, e.stopTimeout = true, 2*time.Second
	pool, err := remote.NewPool(remote.Options{ConfigFile: e.srv.ConfigFile, ControlDir: filepath.Join(e.srv.ControlDir, "a1"), ConnectTimeout: time.Second})
	must(t, err)
	t.Cleanup(pool.Close)
	return e, pool
}

// quit closes o as the app's shutdown does (bounded: 10 s there, 5 here).
func quit(o interface{ Close(context.Context) error }) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = o.Close(ctx) // the stops cannot reach the host: an error after StopTimeout
}

// hostDown waits for 40 frames of task id, then takes the host away and
// waits for the task to say so; it returns the stopped listener.
func hostDown(t *testing.T, e *remoteEnv, id string) int {
	ctx := context.Background()
	waitTask(t, e.db, id, "40 frames", func(store.TaskRun) bool {
		n, _ := store.CountRawFrames(ctx, e.db.R, id)
		return n >= 40
	})
	l := killSSH(t, e.srv)
	waitTask(t, e.db, id, "host unreachable", func(tr store.TaskRun) bool {
		return strings.HasPrefix(tr.StatusReason, "host unreachable since ")
	})
	return l
}

// storedStops is the stored stops' task ids.
func storedStops(t *testing.T, e *remoteEnv) []string {
	list, err := store.PendingStops(context.Background(), e.db.R)
	must(t, err)
	var ids []string
	for _, s := range list {
		if s.Host != "jc-remote" || s.RelayID == "" {
			t.Fatalf("stored stop %+v", s)
		}
		ids = append(ids, s.TaskID)
	}
	return ids
}

// hostBackAgentRuns brings the host back and checks that the agent still
// runs there a while later: the first app, gone, delivered nothing.
func hostBackAgentRuns(t *testing.T, e *remoteEnv, l int) {
	must(t, syscall.Kill(l, syscall.SIGCONT))
	time.Sleep(2 * time.Second)
	if len(e.srv.RemoteProcesses()) == 0 {
		t.Fatal("the agent ended before the next start: nothing left to check")
	}
}

// agentGone waits for the relay's files and every process on the host to
// go, and for the stored stop to be forgotten.
func agentGone(t *testing.T, e *remoteEnv, id string) {
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(e.srv.Home, ".cache", "jean-claude", "relays", "*"))
		if len(m) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("relay files left: %v; processes: %v", m, e.srv.RemoteProcesses())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if left := e.srv.WaitNoRemoteProcesses(ctx, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes left on the host: %v", left)
	}
	deadline = time.Now().Add(10 * time.Second)
	for len(storedStops(t, e)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("stored stops left: %v", storedStops(t, e))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The app quits with "stop" while the host is unreachable: the stop is
// stored (the agent goes on there: the app is gone before the host is
// back); at the next start the relay is adopted — what the agent wrote
// meanwhile stored once, in order — and stopped at once: no process, no
// relay file, no stored stop left.
func TestQuitStopWhileHostDownStopsAtNextStart(t *testing.T) {
	e, pool1 := firstApp(t)
	ctx := context.Background()
	o1 := e.orchestratorOn(t, pool1, false)
	id := e.startTask(t, o1)
	l := hostDown(t, e, id)
	start := time.Now()
	quit(o1)      // with "stop": the stop cannot reach the host
	pool1.Close() // the app's end: no connection of it is made again
	t.Logf("quit took %s", time.Since(start).Round(time.Millisecond))
	if got := storedStops(t, e); len(got) != 1 || got[0] != id {
		t.Fatalf("stored stops = %v, want [%s]", got, id)
	}
	hostBackAgentRuns(t, e, l)

	o2 := e.orchestrator(t, false)
	defer o2.Close(ctx)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	agentGone(t, e, id)
	tr := waitTask(t, e.db, id, "the task ended", func(tr store.TaskRun) bool {
		return tr.Status != store.StatusRunning && tr.Status != store.StatusWaiting
	})
	t.Logf("at the next start: %s %q", tr.Status, tr.StatusReason)
	t.Logf("%d agent lines stored exactly once, in order", agentLines(t, e.db, id, e.record))
}

// A task deleted while its host is unreachable, then the app quits: the
// stop is stored with no task left to adopt; at the next start the host
// retry attaches to the relay, stops the agent and lets the relay end.
func TestDeleteWhileHostDownStopsAtNextStart(t *testing.T) {
	e, pool1 := firstApp(t)
	ctx := context.Background()
	o1 := e.orchestratorOn(t, pool1, false)
	id := e.startTask(t, o1)
	l := hostDown(t, e, id)
	must(t, o1.Stop(ctx, id)) // as TaskService.Delete does first
	must(t, store.DeleteTask(ctx, e.db.W, id))
	quit(o1)
	pool1.Close()
	if got := storedStops(t, e); len(got) != 1 || got[0] != id {
		t.Fatalf("stored stops = %v, want [%s]", got, id)
	}
	hostBackAgentRuns(t, e, l)

	e.retry.Min = 200 * time.Millisecond
	o2 := e.orchestrator(t, false)
	defer o2.Close(ctx)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	agentGone(t, e, id)
}

// A task deleted while its host is unreachable, the app still open: the
// stop is stored, and sent when the link is back; the agent ends and the
// stored stop goes.
func TestDeleteWhileHostDownStopsOnReconnect(t *testing.T) {
	e := newRemoteEnv(t)
	e.stops = true
	ctx := context.Background()
	o := e.orchestrator(t, false)
	defer o.Close(ctx)
	id := e.startTask(t, o)
	l := hostDown(t, e, id)
	must(t, o.Stop(ctx, id))
	must(t, store.DeleteTask(ctx, e.db.W, id))
	// The session's stop reaches the transport after its interrupt's
	// timeout: then it is stored.
	deadline := time.Now().Add(10 * time.Second)
	for got := storedStops(t, e); len(got) != 1 || got[0] != id; got = storedStops(t, e) {
		if time.Now().After(deadline) {
			t.Fatalf("stored stops = %v, want [%s]", got, id)
		}
		time.Sleep(50 * time.Millisecond)
	}
	must(t, syscall.Kill(l, syscall.SIGCONT))
	agentGone(t, e, id)
}

// A Stop asked while the task waits for its host at start (its relay not
// found yet), then the app quits before the host is back: the stop is
// stored for the task; the next start adopts the relay and stops it.
func TestStopWhileWaitingForHostSurvivesQuit(t *testing.T) {
	e := newRemoteEnv(t)
	e.stops, e.stopTimeout = true, 2*time.Second
	e.retry = orchestrator.HostRetry{Min: 200 * time.Millisecond, Max: time.Second, For: 5 * time.Minute}
	ctx := context.Background()
	o1 := e.orchestrator(t, true)
	id := e.startTask(t, o1)
	waitTask(t, e.db, id, "40 frames", func(store.TaskRun) bool {
		n, _ := store.CountRawFrames(ctx, e.db.R, id)
		return n >= 40
	})
	must(t, o1.Close(ctx)) // quit with "keep"
	l := killSSH(t, e.srv) // and the host goes away

	pool2, err := remote.NewPool(remote.Options{ConfigFile: e.srv.ConfigFile, ControlDir: filepath.Join(e.srv.ControlDir, "a2"), ConnectTimeout: time.Second})
	must(t, err)
	t.Cleanup(pool2.Close)
	o2 := e.orchestratorOn(t, pool2, false)
	if _, err := o2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	waitTask(t, e.db, id, "waiting for its host", func(tr store.TaskRun) bool {
		return strings.HasPrefix(tr.StatusReason, "host unreachable since ")
	})
	must(t, o2.Stop(ctx, id))
	tr := waitTask(t, e.db, id, "", func(store.TaskRun) bool { return true })
	t.Logf("stopped while waiting: %s %q", tr.Status, tr.StatusReason)
	if got := storedStops(t, e); len(got) != 1 || got[0] != id {
		t.Fatalf("stored stops = %v, want [%s]", got, id)
	}
	quit(o2)
	pool2.Close()
	hostBackAgentRuns(t, e, l)

	o3 := e.orchestrator(t, false)
	defer o3.Close(ctx)
	if _, err := o3.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	agentGone(t, e, id)
	tr = waitTask(t, e.db, id, "the task ended", func(tr store.TaskRun) bool {
		return tr.Status != store.StatusRunning && tr.Status != store.StatusWaiting
	})
	t.Logf("at the next start: %s %q", tr.Status, tr.StatusReason)
	t.Logf("%d agent lines stored exactly once, in order", agentLines(t, e.db, id, e.record))
}
