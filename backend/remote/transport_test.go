package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
)

// The agent.Transport the runtime uses: the agent (found by name in the
// host's ~/.local/bin) starts behind a relay on the host; the ssh
// processes are killed mid-stream and Next goes on after reconnecting, each
// frame once, in order; the permission is answered; Stop ends it; nothing
// is left on either side.
func TestTransportHidesDrops(t *testing.T) {
	srv := sshdtest.Start(t)
	p, err := NewPool(Options{ConfigFile: srv.ConfigFile, ControlDir: srv.ControlDir, ConnectTimeout: 2 * time.Second})
	must(t, err)
	defer func() {
		p.Close()
		if left := srv.WaitNoRemoteProcesses(context.Background(), 10*time.Second); len(left) > 0 {
			t.Errorf("remote processes left: %v", left)
		}
		if left := sshdtest.WaitNoLocalProcesses(srv.ControlDir, 5*time.Second); len(left) > 0 {
			t.Errorf("local ssh processes left: %v", left)
		}
	}()
	c, _ := p.Client(sshdtest.Alias)
	ctx := context.Background()
	exe, err := os.Executable()
	must(t, err)
	d, err := c.Deploy(ctx, exe)
	must(t, err)
	// "Installed" on the host where the Hosts page puts agent CLIs.
	must(t, os.MkdirAll(filepath.Join(srv.Home, ".local", "bin"), 0o755))
	must(t, os.Symlink(d.Path, filepath.Join(srv.Home, ".local", "bin", "jc-fake-agent")))
	work := filepath.Join(srv.Home, "work")
	must(t, os.MkdirAll(work, 0o755))
	record := filepath.Join(srv.Home, "record.jsonl")

	var mu sync.Mutex
	var downs, ups int
	tr := &Transport{C: c, Tune: shortIdle, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
		OnUnreachable: func(string, time.Time, error) { mu.Lock(); downs++; mu.Unlock() },
		OnReachable:   func(string) { mu.Lock(); ups++; mu.Unlock() }}
	r, err := tr.Start(agent.WithTaskID(ctx, "t9"), agent.ProcSpec{Name: "fake", Role: "agent fake",
		Path: "/usr/local/bin/jc-fake-agent", Dir: work, Stdin: true,
		Env: []string{"HOME=/root", "PATH=/nowhere", "JC_FAKE_AGENT=1", "JC_LINES=200", "JC_EVERY=5ms", "JC_RECORD=" + record}})
	if err != nil {
		t.Fatalf("Start: %v\n%s", err, srv.Log())
	}
	if r.PID() != 0 {
		t.Fatalf("PID = %d: a remote pid must never be signalled locally", r.PID())
	}
	var lines []string
	var last uint64
	killed := false
	for {
		f, err := r.Next()
		if err != nil {
			t.Fatalf("Next after %d frames: %v", len(lines), err)
		}
		if f.Exit != nil {
			if !f.Exit.Stopped {
				t.Fatalf("exit = %+v", f.Exit)
			}
			must(t, r.Ack(f.Exit.Seq))
			break
		}
		if f.Seq != last+1 {
			t.Fatalf("sequence %d after %d", f.Seq, last)
		}
		last = f.Seq
		lines = append(lines, string(f.Line))
		_ = r.Ack(f.Seq)
		if len(lines) == 20 && !killed {
			killed = true
			if n := killLocalSSH(t, srv); n == 0 {
				t.Fatal("no ssh process to kill")
			}
		}
		if strings.Contains(string(f.Line), `"ask"`) {
			must(t, r.WriteLine([]byte("yes")))
		}
		if len(lines) == 202 {
			must(t, r.Stop(time.Second, "done"))
		}
	}
	want, err := os.ReadFile(record)
	must(t, err)
	if strings.Join(lines, "\n")+"\n" != string(want) {
		t.Fatalf("got %d lines, the agent wrote %d", len(lines), strings.Count(string(want), "\n"))
	}
	mu.Lock()
	defer mu.Unlock()
	if downs == 0 || ups == 0 {
		t.Fatalf("downs %d ups %d: the drop was not seen", downs, ups)
	}
	if _, err := os.Stat(filepath.Join(work, "agent.txt")); err != nil {
		t.Fatalf("the agent did not work in its folder: %v", err)
	}
	waitGone(t, filepath.Join(RelayDir(d), r.ID()+".sock"))
	t.Logf("%d lines, each once, in order, across a drop", len(lines))
}

// shortIdle: a relay a killed test left behind stops on its own soon.
func shortIdle(s *relay.Spec) { s.IdleStop, s.IdleExit = time.Minute, time.Minute }

// A relay that cannot start its agent says why: the end of its own log on
// the host comes with the error (before, only "did not start: EOF").
func TestRelayStartFailureSaysWhy(t *testing.T) {
	srv := sshdtest.Start(t)
	p, err := NewPool(Options{ConfigFile: srv.ConfigFile, ControlDir: srv.ControlDir, ConnectTimeout: 2 * time.Second})
	must(t, err)
	defer p.Close()
	c, _ := p.Client(sshdtest.Alias)
	tr := &Transport{C: c, Binary: func(string, string) (string, error) { return os.Executable() }}
	_, err = tr.Start(context.Background(), agent.ProcSpec{Name: "agent", Path: "no-such-agent-7f3a", Role: "agent test", Stdin: true})
	if err == nil || !strings.Contains(err.Error(), "its log: ") || !strings.Contains(err.Error(), "no-such-agent-7f3a") {
		t.Fatalf("err = %v", err)
	}
	t.Logf("%v", err)
	if m, _ := filepath.Glob(filepath.Join(srv.Home, ".cache", "jean-claude", "relays", "*")); len(m) > 0 {
		t.Fatalf("files left by the relay that did not start: %v", m)
	}
}
