package opencode

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// buildFake compiles testdata/fakeopencode into a temp dir as "opencode".
func buildFake(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a helper binary")
	}
	bin := filepath.Join(t.TempDir(), "opencode")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gobin, "build", "-o", bin, "./testdata/fakeopencode").CombinedOutput()
	if err != nil {
		t.Fatalf("build fake opencode: %v\n%s", err, out)
	}
	return bin
}

// gone waits (a little: a SIGKILLed grandchild dies asynchronously) for pid
// to be dead.
func gone(pid int) bool {
	for range 100 {
		if !proc.Alive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func readPids(t *testing.T, path string) []int {
	t.Helper()
	data, _ := os.ReadFile(path)
	var out []int
	for _, f := range strings.Fields(string(data)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

// TestServerLifecycle runs the backend on a real (fake) opencode binary:
// first use starts it, sessions share it, a killed server comes back and the
// sessions carry on, Dispose leaves no process behind.
func TestServerLifecycle(t *testing.T) {
	bin := buildFake(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	b := New(Options{
		Binary:       bin,
		Env:          map[string]string{"FAKE_OC_SCRIPT": mustAbs(t, "testdata/serve-basic.sse"), "FAKE_OC_PIDFILE": pidfile},
		ReconnectMin: 20 * time.Millisecond, ReconnectMax: 200 * time.Millisecond,
		RestartMin: 20 * time.Millisecond, RestartMax: 200 * time.Millisecond,
		HealthTimeout: 20 * time.Second,
	})
	defer b.Dispose(context.Background())
	ctx := context.Background()
	if b.ServerPID() != 0 {
		t.Fatal("server started before first use")
	}
	s1, err := b.Start(ctx, agent.Config{Cwd: t.TempDir()}, "go")
	if err != nil {
		t.Fatal(err)
	}
	pid1 := b.ServerPID()
	if pid1 == 0 || !proc.Alive(pid1) {
		t.Fatalf("server pid %d not running", pid1)
	}
	liveRun(t, s1, 1, nil)
	s2, err := b.Start(ctx, agent.Config{Cwd: t.TempDir()}, "")
	if err != nil {
		t.Fatal(err)
	}
	if b.ServerPID() != pid1 {
		t.Fatal("second session started a second server")
	}

	// The server dies: the sessions' streams bring a new one up.
	if err := syscall.Kill(pid1, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for b.ServerPID() == 0 || b.ServerPID() == pid1 {
		if time.Now().After(deadline) {
			t.Fatal("server not restarted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid2 := b.ServerPID()
	// s1 still works on the new server (the fake forgot the session; the
	// real server keeps them on disk).
	if err := s1.SendMessage(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	liveRun(t, s1, 1, nil)

	pids := readPids(t, pidfile)
	if len(pids) != 4 {
		t.Fatalf("pidfile: %v, want two servers with a child each", pids)
	}
	if !gone(pids[0]) || !gone(pids[1]) {
		t.Fatalf("the dead server's group survived: %v", pids[:2])
	}
	if err := b.Dispose(ctx); err != nil {
		t.Fatal(err)
	}
	for _, pid := range append(pids, pid2) {
		if !gone(pid) {
			t.Errorf("pid %d alive after Dispose", pid)
		}
	}
	if err := s2.Wait(); err != nil {
		t.Fatalf("s2.Wait: %v", err)
	}
	if _, err := b.Start(ctx, agent.Config{Cwd: t.TempDir()}, ""); !errors.Is(err, ErrServerDisposed) {
		t.Fatalf("Start after Dispose: %v", err)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestMissingBinary: a clear, errors.Is-able error.
func TestMissingBinary(t *testing.T) {
	b := New(Options{Binary: filepath.Join(t.TempDir(), "no-opencode")})
	_, err := b.Start(context.Background(), agent.Config{Cwd: t.TempDir()}, "hi")
	if !errors.Is(err, agent.ErrBinaryNotFound) || !strings.HasPrefix(err.Error(), "OpenCode not found: ") {
		t.Fatalf("err = %v", err)
	}
}

// TestServerNeverHealthy: a binary that is not a server gives an error with
// its output, and no process is left.
func TestServerNeverHealthy(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "opencode")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho 'boom: cannot serve' >&2\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := New(Options{Binary: bin, HealthTimeout: 5 * time.Second})
	_, err := b.Start(context.Background(), agent.Config{Cwd: dir}, "hi")
	if err == nil || !strings.Contains(err.Error(), "boom: cannot serve") {
		t.Fatalf("err = %v", err)
	}
	if b.ServerPID() != 0 {
		t.Fatal("a server is recorded")
	}
}

// TestDisposeWhileStarting: Dispose does not wait for a server that is still
// coming up; Start fails and nothing survives.
func TestDisposeWhileStarting(t *testing.T) {
	bin := buildFake(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	b := New(Options{Binary: bin, HealthTimeout: 30 * time.Second,
		Env: map[string]string{"FAKE_OC_SLOW": "20s", "FAKE_OC_PIDFILE": pidfile}})
	errc := make(chan error, 1)
	go func() {
		_, err := b.Start(context.Background(), agent.Config{Cwd: t.TempDir()}, "hi")
		errc <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(readPids(t, pidfile)) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("server never spawned")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if err := b.Dispose(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Dispose took %s", d)
	}
	if err := <-errc; err == nil {
		t.Fatal("Start succeeded on a disposed backend")
	}
	for _, pid := range readPids(t, pidfile) {
		if !gone(pid) {
			t.Errorf("pid %d survived", pid)
		}
	}
}
