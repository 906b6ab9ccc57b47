package relay

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// The test binary plays three parts: the tests, `jean-claude relay` (when
// its first argument is "relay"), and a fake agent (JC_FAKE_AGENT set).
// JC_RELAY_CPUPROFILE=prefix writes the CPU profile of each relay it plays
// to prefix.<pid> (the benchmark's relays: the relay side of a profile).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "relay" {
		os.Exit(relayMain())
	}
	if os.Getenv("JC_FAKE_BENCH") != "" {
		benchAgent()
		os.Exit(0)
	}
	if os.Getenv("JC_FAKE_AGENT") != "" {
		fakeAgent()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeAgent writes JC_FAKE_LINES lines {"n":i} (JC_FAKE_EVERY apart),
// each also appended to its own record file JC_FAKE_RECORD; then, if
// JC_FAKE_ASK is set, asks {"ask":"perm"} and waits for one stdin line;
// then echoes every stdin line as {"echo":...} until "exit". JC_FAKE_SLEEP:
// first sleep that long.
func fakeAgent() {
	if d, err := time.ParseDuration(os.Getenv("JC_FAKE_SLEEP")); err == nil {
		time.Sleep(d) // an agent busy with no output (waiting on its model)
	}
	n, _ := strconv.Atoi(os.Getenv("JC_FAKE_LINES"))
	every, _ := time.ParseDuration(os.Getenv("JC_FAKE_EVERY"))
	rec, _ := os.OpenFile(os.Getenv("JC_FAKE_RECORD"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	out := bufio.NewWriter(os.Stdout)
	emit := func(v any) {
		b, _ := json.Marshal(v)
		if rec != nil { // its own record first: a reader of stdout may compare at once
			rec.Write(append(b, '\n'))
		}
		out.Write(append(b, '\n'))
		if every > 0 {
			out.Flush()
		}
	}
	for i := 1; i <= n; i++ {
		emit(map[string]int{"n": i})
		if every > 0 {
			time.Sleep(every)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	if os.Getenv("JC_FAKE_ASK") != "" {
		emit(map[string]string{"ask": "perm"})
		out.Flush()
		if !in.Scan() {
			os.Exit(3)
		}
		emit(map[string]string{"answered": in.Text()})
	}
	out.Flush()
	for in.Scan() {
		if in.Text() == "exit" {
			out.Flush()
			return
		}
		emit(map[string]string{"echo": in.Text()})
		out.Flush()
	}
}

func relayMain() int {
	if prefix := os.Getenv("JC_RELAY_CPUPROFILE"); prefix != "" {
		if f, err := os.Create(prefix + "." + strconv.Itoa(os.Getpid())); err == nil {
			defer f.Close()
			if pprof.StartCPUProfile(f) == nil {
				defer pprof.StopCPUProfile()
			}
		}
	}
	if path := os.Getenv("JC_RELAY_RUSAGE"); path != "" {
		defer appendRusage(path)
	}
	var stdout io.Writer = os.Stdout
	if d, err := time.ParseDuration(os.Getenv("JC_RELAY_READY_DELAY")); err == nil {
		stdout = delayedWriter{os.Stdout, d} // a relay slow to say it is ready (its agent already started)
	}
	if os.Getenv("JC_RELAY_BAD_READY") != "" {
		stdout = garbledWriter{os.Stdout} // a ready line the app cannot read (its agent already started)
	}
	return Main(os.Args[2:], os.Stdin, stdout, os.Stderr)
}

// delayedWriter sleeps before each write.
type delayedWriter struct {
	w io.Writer
	d time.Duration
}

func (w delayedWriter) Write(p []byte) (int, error) {
	time.Sleep(w.d)
	return w.w.Write(p)
}

// garbledWriter writes a line that is not a meta in place of each write.
type garbledWriter struct{ w io.Writer }

func (w garbledWriter) Write(p []byte) (int, error) {
	if _, err := w.w.Write([]byte("{not a meta\n")); err != nil {
		return 0, err
	}
	return len(p), nil
}

// appendRusage appends this relay's own CPU time and its agent's (user
// and system µs each: relay user, relay system, agent user, agent system)
// to path, one line per relay: JC_RELAY_RUSAGE=path (the relay's share of
// a benchmark, apart from the app's).
func appendRusage(path string) {
	var ru, kid syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kid) != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	us := func(tv syscall.Timeval) int64 { return syscall.TimevalToNsec(tv) / 1000 }
	fmt.Fprintf(f, "%d %d %d %d\n", us(ru.Utime), us(ru.Stime), us(kid.Utime), us(kid.Stime))
}

type fake struct {
	lines  int
	every  time.Duration
	ask    bool
	record string
	sleep  time.Duration // before anything (JC_FAKE_SLEEP)
}

// fakeEnv is the environment that makes the test binary the fake agent f.
func fakeEnv(f fake) []string {
	env := append(os.Environ(), "JC_FAKE_AGENT=1", fmt.Sprintf("JC_FAKE_LINES=%d", f.lines),
		"JC_FAKE_EVERY="+f.every.String(), "JC_FAKE_RECORD="+f.record)
	if f.ask {
		env = append(env, "JC_FAKE_ASK=1")
	}
	if f.sleep > 0 {
		env = append(env, "JC_FAKE_SLEEP="+f.sleep.String())
	}
	return env
}

// relaySpec is the spec of a relay of the test binary over a fake agent, in
// a directory of its own (removed after the test); its Path is the binary.
func relaySpec(t *testing.T, f fake, tune func(*Spec)) Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "jcr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	id, token := NewID()
	spec := Spec{Dir: filepath.Join(dir, "relays"), ID: id, Token: token, TaskID: "task-1", Role: "agent fake",
		Name: "fake", Path: exe, Env: fakeEnv(f), Stdin: true, WaitDelay: time.Second}
	if tune != nil {
		tune(&spec)
	}
	return spec
}

// launch starts a relay of the test binary over a fake agent.
func launch(t *testing.T, f fake, tune func(*Spec)) (Spec, Meta) {
	t.Helper()
	spec := relaySpec(t, f, tune)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	m, err := Launch(ctx, spec.Path, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if m.Alive() {
			_ = killGroupPid(m.AgentPID)
			_ = killPid(m.RelayPID)
		}
	})
	return spec, m
}

func dial(t *testing.T, m Meta, from uint64) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, m.Socket, m.Token, from)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// next reads the next message with a timeout.
func next(t *testing.T, c *Client) Msg {
	t.Helper()
	type r struct {
		m   Msg
		err error
	}
	ch := make(chan r, 1)
	go func() {
		m, err := c.Next()
		ch <- r{m, err}
	}()
	select {
	case got := <-ch:
		if got.err != nil {
			t.Fatalf("next: %v", got.err)
		}
		return got.m
	case <-time.After(15 * time.Second):
		t.Fatal("next: timeout")
	}
	return Msg{}
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if !proc.Alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("pid %d still alive", pid)
}
