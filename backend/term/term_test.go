package term

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// The test binary doubles as the programs the terminals run.
func TestMain(m *testing.M) {
	switch os.Getenv("TERM_TEST_HELPER") {
	case "login":
		fmt.Print("Paste your code: ")
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Printf("\r\nsigned in as %s\r\n", strings.TrimSpace(line))
		os.Exit(3)
	case "spam":
		for i := range 5000 {
			fmt.Printf("line %05d\r\n", i)
		}
		fmt.Print("spam done\r\n")
		time.Sleep(5 * time.Minute)
		os.Exit(0)
	case "hang":
		child := exec.Command("sleep", "300")
		_ = child.Start()
		fmt.Printf("child=%d\r\n", child.Process.Pid)
		time.Sleep(5 * time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type rec struct {
	mu  sync.Mutex
	out strings.Builder
	ex  []Exit
	all []Output
}

func (r *rec) Emit(name string, p any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch v := p.(type) {
	case Output:
		r.out.Write(v.Data)
		r.all = append(r.all, v)
	case Exit:
		r.ex = append(r.ex, v)
	}
}

func (r *rec) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func helper(name string) Spec {
	return Spec{Path: os.Args[0], Env: append(os.Environ(), "TERM_TEST_HELPER="+name), Cols: 100, Rows: 30}
}

func TestInteractiveProgramAndExitCode(t *testing.T) {
	r := &rec{}
	m := NewManager(r)
	id, err := m.Start(helper("login"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "prompt", func() bool { return strings.Contains(r.output(), "Paste your code:") })
	if err := m.Resize(id, 120, 40); err != nil {
		t.Fatal(err)
	}
	if err := m.Write(id, []byte("abc123\r")); err != nil {
		t.Fatal(err)
	}
	code, err := m.Wait(context.Background(), id)
	if err != nil || code != 3 {
		t.Fatalf("exit %d %v", code, err)
	}
	waitFor(t, "exit event", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.ex) == 1 })
	if !strings.Contains(r.output(), "signed in as abc123") {
		t.Fatalf("output %q", r.output())
	}
	if err := m.Write(id, []byte("x")); err != ErrNotFound {
		t.Fatalf("write after exit: %v", err)
	}
}

func TestCloseAllKillsEveryProcess(t *testing.T) {
	r := &rec{}
	m := NewManager(r)
	var pids []int
	for range 2 {
		id, err := m.Start(helper("hang"))
		if err != nil {
			t.Fatal(err)
		}
		_ = id
	}
	waitFor(t, "children", func() bool { return strings.Count(r.output(), "child=") == 2 })
	for _, f := range strings.Split(r.output(), "child=")[1:] {
		pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(f, "\r", 2)[0]))
		pids = append(pids, pid)
	}
	if len(m.Running()) != 2 {
		t.Fatalf("running %v", m.Running())
	}
	m.CloseAll(context.Background())
	if len(m.Running()) != 0 {
		t.Fatalf("still running %v", m.Running())
	}
	waitFor(t, "grandchildren gone", func() bool {
		for _, p := range pids {
			if proc.Alive(p) {
				return false
			}
		}
		return true
	})
	if _, err := m.Start(helper("login")); err == nil {
		t.Fatal("started after CloseAll")
	}
}
