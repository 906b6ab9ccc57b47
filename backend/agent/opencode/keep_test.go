package opencode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
	"github.com/jean-claude/jean-claude/backend/relay"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "relay" { // the test binary as `jean-claude relay`
		os.Exit(relay.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// shortDir is a relay directory with room for socket paths (~107 bytes).
func shortDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "ocr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ms, _ := relay.List(d)
		for _, m := range ms {
			_ = m.KillAgent()
			if m.Alive() {
				_ = syscall.Kill(m.RelayPID, syscall.SIGKILL)
			}
		}
		os.RemoveAll(d)
	})
	return d
}

// TestServerKeptAndAdoptedWithRecordedPassword: with relays the server
// outlives its backend (KeepServer, then Dispose); the next backend adopts
// it (same process, no second start) after a health check with the
// password recorded in the relay's meta; a server that does not answer to
// the recorded password is not adopted but stopped, its relay gone.
func TestServerKeptAndAdoptedWithRecordedPassword(t *testing.T) {
	bin := buildFake(t)
	pidfile := filepath.Join(t.TempDir(), "pids")
	rdir := shortDir(t)
	ctx := context.Background()
	script, err := filepath.Abs("testdata/serve-basic.sse")
	if err != nil {
		t.Fatal(err)
	}
	newBackend := func() *Backend {
		return New(Options{Binary: bin, Env: map[string]string{"FAKE_OC_PIDFILE": pidfile, "FAKE_OC_SCRIPT": script},
			Relays: &relay.Transport{Dir: rdir}})
	}
	b1 := newBackend()
	s, err := b1.Start(ctx, agent.Config{Cwd: t.TempDir()}, "")
	if err != nil {
		t.Fatal(err)
	}
	pid := b1.ServerPID()
	_ = s.Stop(ctx)
	if !b1.KeepServer(ctx) {
		t.Fatal("a relayed server was not kept")
	}
	if err := b1.Dispose(ctx); err != nil {
		t.Fatal(err)
	}
	if !proc.Alive(pid) {
		t.Fatal("the kept server died with its backend")
	}

	b2 := newBackend()
	if !b2.AdoptServer(ctx) || b2.ServerPID() != pid {
		t.Fatalf("not adopted: pid %d, want %d", b2.ServerPID(), pid)
	}
	if _, err := b2.Start(ctx, agent.Config{Cwd: t.TempDir()}, ""); err != nil {
		t.Fatal(err)
	}
	if pids := readPids(t, pidfile); len(pids) != 2 {
		t.Fatalf("servers started: %v (want one: server and child)", pids)
	}
	if !b2.KeepServer(ctx) {
		t.Fatal("not kept")
	}
	_ = b2.Dispose(ctx)

	metas, _ := relay.List(rdir)
	if len(metas) != 1 || metas[0].Extra[extraPassword] == "" {
		t.Fatalf("metas %+v", metas)
	}
	m := metas[0]
	m.Extra[extraPassword] = "not-the-password"
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(rdir, m.ID+".json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	b3 := newBackend()
	defer b3.Dispose(ctx)
	if b3.AdoptServer(ctx) {
		t.Fatal("a server that refuses the recorded password was adopted")
	}
	if !gone(pid) {
		t.Fatal("the server that was not adopted still runs")
	}
	for range 100 {
		if ms, _ := relay.List(rdir); len(ms) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("relay left: %+v", m)
}
