package remote

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/remote/sshdtest"
)

// memSink stores frames in memory the way the orchestrator stores raw
// frames, and counts every store of a sequence.
type memSink struct {
	mu         sync.Mutex
	seqs       []uint64
	lines      []string
	stores     map[uint64]int
	exit       *relay.Exit
	downSince  time.Time
	downs, ups int
	changed    chan struct{}
}

func newSink() *memSink { return &memSink{stores: map[uint64]int{}, changed: make(chan struct{}, 1)} }

func (s *memSink) poke() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *memSink) LastSeq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exit != nil {
		return s.exit.Seq
	}
	if len(s.seqs) == 0 {
		return 0
	}
	return s.seqs[len(s.seqs)-1]
}

func (s *memSink) Store(m relay.Msg) error {
	s.mu.Lock()
	s.seqs = append(s.seqs, m.Seq)
	s.lines = append(s.lines, string(m.Payload))
	s.stores[m.Seq]++
	s.mu.Unlock()
	s.poke()
	return nil
}

func (s *memSink) Exited(e relay.Exit) error {
	s.mu.Lock()
	s.exit = &e
	s.mu.Unlock()
	s.poke()
	return nil
}

func (s *memSink) Unreachable(since time.Time, err error) {
	s.mu.Lock()
	if s.downSince.IsZero() || since.After(s.downSince) {
		s.downs++
	}
	s.downSince = since
	s.mu.Unlock()
	s.poke()
}

func (s *memSink) Reachable() {
	s.mu.Lock()
	s.ups++
	s.mu.Unlock()
	s.poke()
}

// waitFor polls cond (under the sink's lock) until it holds.
func (s *memSink) waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.After(d)
	for {
		s.mu.Lock()
		ok := cond()
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-s.changed:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// newRemoteRepo makes a repository with one commit on "the remote" and a
// gitx.Git running there.
func newRemoteRepo(t *testing.T, c *Client, home string) (*gitx.Git, string) {
	t.Helper()
	ctx := context.Background()
	cfg := filepath.Join(home, "gitconfig")
	must(t, os.WriteFile(cfg, []byte("[init]\n\tdefaultBranch = main\n"), 0o644))
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + cfg,
		"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=t@example.com"}
	repo := filepath.Join(home, "src", "my repo")
	if _, err := c.Output(ctx, "mkdir", "-p", "--", repo); err != nil {
		t.Fatal(err)
	}
	g, err := NewGit(c, env)
	must(t, err)
	rg := GitRunner{C: c}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		var out bytes.Buffer
		if err := rg.Git(ctx, repo, args, env, nil, &out, &out); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out.String())
		}
	}
	return g, repo
}

// killLocalSSH kills every local ssh process using this server's control
// folder (the master connection and the relay dial): the connection drops.
func killLocalSSH(t *testing.T, srv *sshdtest.Server) int {
	n := 0
	for _, p := range sshdtest.LocalProcessesMatching(srv.ControlDir) {
		var pid int
		if _, err := fmtSscan(p, &pid); err == nil && pid != os.Getpid() {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
	}
	return n
}

// A task on the remote: the binary is deployed, the relay runs the fake
// agent in a worktree there, the connection is killed mid-stream while the
// host stays unreachable for a while, the link comes back and ingests the
// journal — every line stored exactly once, in order — a permission is
// answered, the diff shows the agent's file, the task is stopped, and no
// process is left on either side.
func TestRemoteTaskSurvivesDrop(t *testing.T) {
	srv := sshdtest.Start(t)
	p, err := NewPool(Options{ConfigFile: srv.ConfigFile, ControlDir: srv.ControlDir, ConnectTimeout: time.Second})
	must(t, err)
	defer func() {
		p.Close()
		if left := srv.WaitNoRemoteProcesses(context.Background(), 10*time.Second); len(left) > 0 {
			t.Errorf("remote processes left: %v", left)
		}
		if left := sshdtest.WaitNoLocalProcesses(srv.ControlDir, 5*time.Second); len(left) > 0 {
			out, _ := exec.Command("ps", "-eo", "pid,ppid,pgid,sid,lstart,args").Output()
			t.Errorf("local ssh processes left: %v\n%s", left, out)
		}
	}()
	c, _ := p.Client(sshdtest.Alias)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	g, repo := newRemoteRepo(t, c, srv.Home)
	wt, err := g.CreateWorktree(ctx, gitx.CreateOptions{Repo: repo, TaskName: "remote task", TaskID: "t1"})
	must(t, err)
	exe, err := os.Executable()
	must(t, err)
	d, err := c.Deploy(ctx, exe)
	must(t, err)

	const lines = 300
	record := filepath.Join(srv.Home, "agent-record.jsonl")
	id, token := relay.NewID()
	secret := "s3cr3t-" + token[:12] // made at run time: not in the deployed binary
	spec := relay.Spec{Dir: RelayDir(d), ID: id, Token: token, TaskID: "t1", Role: "agent", Name: "fake",
		Path: d.Path, WorkDir: wt.Path, Stdin: true, IdleStop: time.Minute, IdleExit: time.Minute,
		Env: []string{"JC_FAKE_AGENT=1", "JC_LINES=300", "JC_EVERY=10ms", "JC_RECORD=" + record, "JC_SECRET=" + secret}}
	meta, err := c.LaunchRelay(ctx, d.Path, spec)
	if err != nil {
		t.Fatalf("LaunchRelay: %v\n%s", err, srv.Log())
	}

	sink := newSink()
	link := &Link{C: c, Bin: d.Path, Meta: meta, Sink: sink, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
	runErr := make(chan error, 1)
	go func() { runErr <- link.Run(ctx) }()

	sink.waitFor(t, "30 frames", 30*time.Second, func() bool { return len(sink.seqs) >= 30 })
	// Drop: the listener stops answering and every ssh process is killed.
	listener := srv.ListenerPID()
	must(t, syscall.Kill(listener, syscall.SIGSTOP))
	if n := killLocalSSH(t, srv); n == 0 {
		t.Fatal("no ssh process to kill")
	}
	sink.waitFor(t, "the link to go down", 20*time.Second, func() bool { return sink.downs > 0 })
	time.Sleep(1500 * time.Millisecond) // unreachable for a while; the agent goes on
	sink.mu.Lock()
	since, stored := sink.downSince, len(sink.seqs)
	sink.mu.Unlock()
	t.Logf("host unreachable since %s with %d frames stored", since.Format(time.TimeOnly), stored)
	must(t, syscall.Kill(listener, syscall.SIGCONT))
	t.Logf("listener continued")
	sink.waitFor(t, "the link to come back", 30*time.Second, func() bool { return sink.ups > 0 })

	sink.waitFor(t, "the permission request", 60*time.Second, func() bool {
		return len(sink.lines) > 0 && strings.Contains(sink.lines[len(sink.lines)-1], `"ask"`)
	})
	t.Logf("permission asked")
	must(t, link.WriteLine([]byte("allow")))
	sink.waitFor(t, "every line", 60*time.Second, func() bool { return len(sink.seqs) >= lines+2 })

	diff, err := g.Diff(ctx, wt.Path, wt.Base, gitx.DiffOptions{})
	if err != nil || len(diff.Files) != 1 || diff.Files[0].Path != "agent.txt" {
		t.Fatalf("diff = %+v, %v", diff, err)
	}
	t.Logf("every line in; stopping")
	must(t, link.Stop(2*time.Second, "stopped by the test"))
	select {
	case err := <-runErr:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not end after Stop")
	}
	t.Logf("stopped")
	checkExactlyOnce(t, sink, record)
	if sink.exit == nil || !sink.exit.Stopped {
		t.Fatalf("exit = %+v", sink.exit)
	}
	// The relay removed its files once its exit was acknowledged.
	waitGone(t, filepath.Join(RelayDir(d), id+".sock"))
	if hits := grepTree(srv.Home, secret); len(hits) > 0 {
		t.Fatalf("the secret was written on the host: %v", hits)
	}
}

func checkExactlyOnce(t *testing.T, s *memSink, record string) {
	t.Helper()
	want, err := os.ReadFile(record)
	must(t, err)
	got := strings.Join(s.lines, "\n") + "\n"
	if got != string(want) {
		t.Fatalf("stored lines differ from the agent's own record:\nstored %d lines, agent wrote %d", len(s.lines), strings.Count(string(want), "\n"))
	}
	for i, seq := range s.seqs {
		if seq != uint64(i+1) {
			t.Fatalf("sequence %d at position %d", seq, i)
		}
		if s.stores[seq] != 1 {
			t.Fatalf("sequence %d stored %d times", seq, s.stores[seq])
		}
	}
	t.Logf("%d lines stored exactly once, in order, across %d drop(s)", len(s.lines), s.downs)
}

func waitGone(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if _, err := os.Stat(path); os.IsNotExist(err) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s still there", path)
}

// grepTree lists files under dir containing s.
func grepTree(dir, s string) []string {
	var hits []string
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || !info.Mode().IsRegular() || info.Size() > 64<<20 {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
			hits = append(hits, p)
		}
		return nil
	})
	return hits
}

func fmtSscan(s string, pid *int) (int, error) { return fmt.Sscan(s, pid) }

// A spec larger than one ssh packet (an agent's environment can be) reaches
// the relay whole, every time: before, the launch shell's process ended
// (setsid forked) while the spec was still on its way, sshd closed the
// session's stdin, and the relay read a cut spec ("spec: EOF").
func TestLaunchRelayLargeSpec(t *testing.T) {
	p, srv := newPool(t)
	c, _ := p.Client(sshdtest.Alias)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exe, err := os.Executable()
	must(t, err)
	d, err := c.Deploy(ctx, exe)
	must(t, err)
	env := []string{"JC_FAKE_AGENT=1", "JC_LINES=1", "JC_RECORD=" + filepath.Join(srv.Home, "record.jsonl")}
	for i := 0; i < 12; i++ {
		env = append(env, fmt.Sprintf("JC_PAD_%d=%s", i, strings.Repeat("x", 16<<10)))
	}
	for i := 0; i < 4; i++ {
		id, token := relay.NewID()
		spec := relay.Spec{Dir: RelayDir(d), ID: id, Token: token, TaskID: "t1", Role: "agent", Name: "fake",
			Path: d.Path, WorkDir: srv.Home, Stdin: true, IdleStop: time.Minute, IdleExit: time.Minute, Env: env}
		meta, err := c.LaunchRelay(ctx, d.Path, spec)
		if err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
		sink := newSink()
		link := &Link{C: c, Bin: d.Path, Meta: meta, Sink: sink, MinBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}
		runErr := make(chan error, 1)
		go func() { runErr <- link.Run(ctx) }()
		sink.waitFor(t, "the agent's line", 30*time.Second, func() bool { return len(sink.seqs) == 1 })
		must(t, link.Stop(2*time.Second, "stopped by the test"))
		select {
		case err := <-runErr:
			must(t, err)
		case <-time.After(30 * time.Second):
			t.Fatal("Run did not end after Stop")
		}
	}
}
