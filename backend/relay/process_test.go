package relay

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// keepRemote is a Transport that remembers the links it made (to drop one
// as a crashing app would).
type keepRemote struct {
	*Transport
	mu   sync.Mutex
	last *Remote
}

func (k *keepRemote) Start(ctx context.Context, ps agent.ProcSpec) (agent.Remote, error) {
	r, err := k.Transport.Start(ctx, ps)
	if err == nil {
		k.mu.Lock()
		k.last = r.(*Remote)
		k.mu.Unlock()
	}
	return r, err
}

// store is the app's database in miniature: frames stored in order, each
// acknowledged after it is stored (as the orchestrator does after commit).
type store struct {
	mu     sync.Mutex
	frames [][]byte
}

func (s *store) consume(st *agent.Stream) {
	for b := range st.Events() {
		if b.Frame == nil {
			continue
		}
		s.mu.Lock()
		s.frames = append(s.frames, b.Frame)
		s.mu.Unlock()
		b.Ack()
	}
}

func (s *store) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.frames)
}

type nopNorm struct{}

func (nopNorm) Feed([]byte) []agent.Event { return nil }
func (nopNorm) Flush() []agent.Event      { return nil }

func fakeSpec(t *testing.T, f fake) agent.ProcSpec {
	exe, _ := os.Executable()
	return agent.ProcSpec{Name: "fake", Path: exe, Env: fakeEnv(f), Stdin: true, Role: "agent fake", WaitDelay: time.Second}
}

// The same Process API over a relay; the app "crashes" (its link drops
// without a goodbye, frames queued but unstored are lost with it), a new
// app adopts the relay from the last stored frame: every line stored
// exactly once and in order, the stream goes on, a follow-up is answered.
func TestProcessOverRelayAdoptedAfterAppCrash(t *testing.T) {
	dir, _ := os.MkdirTemp("", "jcr")
	defer os.RemoveAll(dir)
	record := filepath.Join(dir, "agent.record")
	tr := &keepRemote{Transport: &Transport{Dir: filepath.Join(dir, "relays")}}
	spec := fakeSpec(t, fake{lines: 600, every: time.Millisecond, record: record})
	db := &store{}
	st := agent.NewStream("fake", nopNorm{})
	spec.OnFrame = func(line []byte, at time.Time, err error) { st.Frame(line, at) }
	spec.Transport = tr
	p, err := agent.StartProcess(agent.WithTaskID(context.Background(), "t1"), spec)
	if err != nil {
		t.Fatal(err)
	}
	st.Bind(p)
	consumed := make(chan struct{})
	go func() { db.consume(st); close(consumed) }()
	for db.count() < 150 {
		time.Sleep(time.Millisecond)
	}
	tr.mu.Lock()
	meta := tr.last.Meta
	tr.last.C.Close() // the app dies
	tr.mu.Unlock()
	<-p.Done()
	if p.ExitError() == nil {
		t.Fatal("a lost link must be an error for the old app")
	}
	st.Close()
	<-consumed // the old app stored what it had taken
	if meta.TaskID != "t1" {
		t.Fatalf("meta %+v", meta)
	}

	// The next app: adopt from the last stored sequence.
	metas, _ := List(filepath.Dir(meta.Socket))
	if len(metas) != 1 || !metas[0].Alive() {
		t.Fatalf("relays %+v", metas)
	}
	r, err := Adopt(context.Background(), metas[0], uint64(db.count())+1)
	if err != nil {
		t.Fatal(err)
	}
	st2 := agent.NewStream("fake", nopNorm{})
	spec.OnFrame = func(line []byte, at time.Time, err error) { st2.Frame(line, at) }
	p2 := agent.AdoptProcess(spec, r)
	st2.Bind(p2)
	go db.consume(st2)
	deadline := time.Now().Add(20 * time.Second)
	for db.count() < 600 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := p2.WriteLine([]byte("follow-up")); err != nil {
		t.Fatal(err)
	}
	for db.count() < 601 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := p2.WriteLine([]byte("exit")); err != nil {
		t.Fatal(err)
	}
	<-p2.Done()
	st2.Close()
	<-st2.Done()
	if err := p2.Wait(); err != nil || p2.ExitCode() != 0 {
		t.Fatalf("wait %v code %d", err, p2.ExitCode())
	}
	want, _ := os.ReadFile(record)
	got := append(bytes.Join(db.frames, []byte("\n")), '\n')
	if !bytes.Equal(got, want) {
		t.Fatalf("stored %d frames (%d bytes), agent wrote %d bytes", len(db.frames), len(got), len(want))
	}
	waitGone(t, meta.RelayPID) // exit stored → relay removed itself
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(meta.Socket), "*")); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
}

// Quit with "stop": no process left.
func TestProcessOverRelayStopLeavesNothing(t *testing.T) {
	dir, _ := os.MkdirTemp("", "jcr")
	defer os.RemoveAll(dir)
	tr := &keepRemote{Transport: &Transport{Dir: filepath.Join(dir, "relays")}}
	spec := fakeSpec(t, fake{lines: 1})
	spec.Transport = tr
	lines := make(chan []byte, 10)
	spec.OnFrame = func(line []byte, at time.Time, err error) { lines <- line }
	p, err := agent.StartProcess(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	<-lines
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Stop(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Fatalf("stop is not an error: %v", err)
	}
	waitGone(t, p.PID())
	waitGone(t, tr.last.Meta.RelayPID)
}

// TestNoRelayFallsBackToChild: when the relay cannot be launched (the
// binary is not a jean-claude that knows `relay`, or the socket path is
// too long), nothing is left running and StartProcess runs the agent as a
// direct child: the task starts, it only loses its survival of a restart.
// A start that fails for the agent itself is not retried that way twice:
// the error is the agent's.
func TestNoRelayFallsBackToChild(t *testing.T) {
	long := filepath.Join(t.TempDir(), string(bytes.Repeat([]byte("d"), 120)))
	for name, tr := range map[string]*Transport{
		"not a relay":      {Dir: t.TempDir(), Exe: "/bin/true"},
		"socket path long": {Dir: long},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			p, err := agent.StartProcess(context.Background(), agent.ProcSpec{Name: "echo", Path: "/bin/echo", Args: []string{"hello"},
				Transport: tr, OnFrame: func(line []byte, _ time.Time, _ error) {
					mu.Lock()
					got = append(got, string(line))
					mu.Unlock()
				}})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Wait(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if p.Relayed() || len(got) != 1 || got[0] != "hello" {
				t.Fatalf("relayed %v, frames %q", p.Relayed(), got)
			}
			if left, _ := filepath.Glob(filepath.Join(tr.Dir, "*")); len(left) != 0 {
				t.Fatalf("relay files left: %v", left)
			}
		})
	}
	_, err := agent.StartProcess(context.Background(), agent.ProcSpec{Name: "nope", Path: "/nonexistent/agent",
		Transport: &Transport{Dir: t.TempDir()}})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/agent") {
		t.Fatalf("a missing agent: %v", err)
	}
}

// TestAdoptAfterUnackedStoreNotStuck: an app stored frames but died before
// its acks reached the relay, which had paused (AttachedBytes) at those
// unacked frames; a new app takes over from the journal's start (frames up
// to its stored sequence come as replays, which bring no acks). The relay
// must read the agent on: a follow-up is answered.
func TestAdoptAfterUnackedStoreNotStuck(t *testing.T) {
	_, m := launch(t, fake{lines: 4}, func(s *Spec) { s.AttachedBytes = 16 }) // its 4 lines are 32 bytes
	c1 := dial(t, m, 1)
	for i := 0; i < 4; i++ {
		if msg := next(t, c1); msg.Type != MsgFrame {
			t.Fatalf("frame %d: %c", i+1, msg.Type)
		}
	}
	// No ack: "stored" 4, then the app is gone and a new one takes over.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := AdoptReplaying(ctx, m, 4)
	if err != nil {
		t.Fatal(err)
	}
	c1.Close()
	got := make(chan string, 16)
	p := agent.AdoptProcess(agent.ProcSpec{Name: "fake", Stdin: true, OnFrame: func(line []byte, _ time.Time, _ error) {
		got <- string(line)
	}}, r)
	if err := p.WriteLine([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case l := <-got:
			if l == `{"echo":"hi"}` {
				_ = p.WriteLine([]byte("exit"))
				if err := p.Wait(); err != nil {
					t.Fatal(err)
				}
				return
			}
		case <-deadline:
			t.Fatal("the follow-up was not answered: the relay stayed paused")
		}
	}
}

// TestAgentTmpDirRemoved: an agent runs with a TMPDIR of its own inside
// the temporary directory, and once it ended (a child it left running
// included) nothing of it is left there, as a direct child and behind a
// relay; a relay also removes what a dead relay left there. Agent CLIs
// leave files in $TMPDIR on every run (OpenCode a 5.4 MB library, Claude
// Code its settings; agent.WithTmpDir).
func TestAgentTmpDirRemoved(t *testing.T) {
	script := `echo "$TMPDIR"; mkdir "$TMPDIR/lib" && echo x > "$TMPDIR/lib/native.so" && sleep 60 & wait $!; echo ok`
	for _, relayed := range []bool{false, true} {
		t.Run(map[bool]string{false: "child", true: "relay"}[relayed], func(t *testing.T) {
			base := t.TempDir()
			t.Setenv("TMPDIR", base)
			spec := agent.ProcSpec{Name: "sh", Path: "/bin/sh", Args: []string{"-c", script}, WaitDelay: time.Second}
			if relayed {
				spec.Transport = &Transport{Dir: filepath.Join(t.TempDir(), "r")}
				// What a relay killed on a host left there: the next
				// relay sweeps it (no app sweeps a host's).
				done := exec.Command("true")
				if err := done.Run(); err != nil {
					t.Fatal(err)
				}
				stale := filepath.Join(base, fmt.Sprintf("jean-claude-private-tmp-p%d-123", done.Process.Pid))
				if err := os.MkdirAll(filepath.Join(stale, "lib"), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			lines := make(chan string, 4)
			spec.OnFrame = func(line []byte, _ time.Time, _ error) { lines <- string(line) }
			p, err := agent.StartProcess(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if p.Relayed() != relayed {
				t.Fatalf("relayed %v, want %v", p.Relayed(), relayed)
			}
			tmp := <-lines
			if filepath.Dir(tmp) != base || !strings.HasPrefix(filepath.Base(tmp), "jean-claude-") {
				t.Fatalf("the agent's TMPDIR is %q, want a jean-claude-* directory in %s", tmp, base)
			}
			deadline := time.Now().Add(10 * time.Second)
			for _, err := os.Stat(filepath.Join(tmp, "lib", "native.so")); err != nil; _, err = os.Stat(filepath.Join(tmp, "lib", "native.so")) {
				if time.Now().After(deadline) {
					t.Fatalf("the agent's file never showed: %v", err)
				}
				time.Sleep(10 * time.Millisecond)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := p.Stop(ctx, 100*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			_ = p.Wait()
			if left, _ := os.ReadDir(base); len(left) != 0 {
				t.Fatalf("left in the temporary directory after the agent ended: %v", left)
			}
		})
	}
}
