package orchestrator

import (
	"bufio"
	"context"
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
	"github.com/jean-claude/jean-claude/backend/agent/opencode"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
	"github.com/jean-claude/jean-claude/backend/store"
)

const childOpenCodeEnv = "JEAN_CLAUDE_ORCH_CHILD_OPENCODE"

// childOpenCodeApp is the "app" of TestOpenCodeServerReapedAfterCrash: it
// starts an OpenCode session (so the shared server comes up, recorded by
// the runtime) and waits to be killed.
func childOpenCodeApp() int {
	ctx := context.Background()
	db, err := store.Open(ctx, os.Getenv("CHILD_DB"), store.Options{})
	if err != nil {
		println("ERR", err.Error())
		return 1
	}
	b := opencode.New(opencode.Options{Binary: os.Getenv(childOpenCodeEnv), Recorder: &store.ProcessLog{DB: db},
		Env: map[string]string{"FAKE_OC_PIDFILE": os.Getenv("CHILD_PIDFILE"), "FAKE_OC_SCRIPT": os.Getenv("CHILD_SCRIPT")}})
	if _, err := b.Start(ctx, agent.Config{Cwd: os.Getenv("CHILD_CWD"), Mode: agent.ModeAsk}, ""); err != nil {
		println("ERR", err.Error())
		return 1
	}
	os.Stdout.WriteString("READY\n")
	select {}
}

func buildFakeOpenCode(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "opencode")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gobin, "build", "-o", bin, "../agent/opencode/testdata/fakeopencode").CombinedOutput()
	if err != nil {
		t.Fatalf("build fake opencode: %v\n%s", err, out)
	}
	return bin
}

// TestOpenCodeServerReapedAfterCrash: kill -9 of the app leaves the shared
// `opencode serve` (and the child it started) running; the next start ends
// them, because the runtime recorded the server when it started it, and
// removes the server's own TMPDIR (agent.WithTmpDir), which no one else
// would.
func TestOpenCodeServerReapedAfterCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a helper binary")
	}
	dir := t.TempDir()
	dbPath, pidfile := filepath.Join(dir, "app.db"), filepath.Join(dir, "pids")
	db := openDBAt(t, dbPath)
	script, err := filepath.Abs("../agent/opencode/testdata/serve-basic.sse")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir() // the temporary directory of both apps: the server's own TMPDIR is made in it
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // SweepPrivateDirs looks there too
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childOpenCodeEnv+"="+buildFakeOpenCode(t), "CHILD_DB="+dbPath,
		"CHILD_PIDFILE="+pidfile, "CHILD_CWD="+dir, "CHILD_SCRIPT="+script)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || sc.Text() != "READY" {
		t.Fatalf("child app: %q", sc.Text())
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		pids = append(pids, n)
	}
	if len(pids) != 2 {
		t.Fatalf("pidfile %q", b)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	time.Sleep(200 * time.Millisecond)
	for _, p := range pids {
		if !proc.Alive(p) {
			t.Fatalf("process %d died with the app: nothing to reap", p)
		}
	}
	ps, _ := store.AppProcesses(context.Background(), db.R)
	if len(ps) != 1 || ps[0].PID != pids[0] || ps[0].Role != "opencode-server" {
		t.Fatalf("recorded processes: %+v, want the server %d", ps, pids[0])
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "jean-claude-*")); len(left) != 1 {
		t.Fatalf("the server's own TMPDIR: %v, want one jean-claude-* in %s", left, tmp)
	}
	h := newHarness(t, Options{DB: db})
	if _, err := h.o.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the dead app's OpenCode server and its child ended", func() bool { return !proc.Alive(pids[0]) && !proc.Alive(pids[1]) })
	// The app's start then sweeps the private dirs of apps gone
	// (orchestrator_wiring.go): the server's TMPDIR is one.
	if _, err := agent.SweepPrivateDirs(24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "jean-claude-*")); len(left) != 0 {
		t.Fatalf("the dead app's agent TMPDIRs are still there: %v", left)
	}
	if ps, _ := store.AppProcesses(context.Background(), db.R); len(ps) != 0 {
		t.Fatalf("still recorded: %+v", ps)
	}
}
