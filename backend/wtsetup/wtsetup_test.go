package wtsetup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@e")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	write(t, dir, ".gitignore", ".env*\n*.local\nnode_modules/\n")
	write(t, dir, "README.md", "hi\n")
	run("add", ".")
	run("commit", "-q", "-m", "init")
	return dir
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestCopyFilesIgnoredNestedAndSymlinks(t *testing.T) {
	repo := gitRepo(t)
	write(t, repo, ".env", "A=1\n")
	write(t, repo, ".env.test", "A=2\n")
	write(t, repo, "services/api/.env", "B=1\n")
	write(t, repo, "config/deep/app.local", "x\n")
	write(t, repo, "node_modules/pkg/.env", "never\n")
	outside := filepath.Join(t.TempDir(), "secret")
	write(t, filepath.Dir(outside), "secret", "outside\n")
	if err := os.Symlink(outside, filepath.Join(repo, ".env.link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(repo, "linkdir")); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(t.TempDir(), "wt")
	cmd := exec.Command("git", "worktree", "add", "-q", "-b", "task", wt)
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("worktree: %v %s", err, out)
	}
	write(t, wt, ".env.test", "mine\n") // already in the worktree: kept
	globs, err := ParseGlobs(".env*\n# comment\n\nservices/**/.env\nconfig/**/*.local\nlinkdir/**\n")
	if err != nil {
		t.Fatal(err)
	}
	res, err := CopyFiles(repo, wt, globs)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".env", "config/deep/app.local", "services/api/.env"}
	if !reflect.DeepEqual(res.Copied, want) {
		t.Fatalf("copied %v, want %v (skipped %v)", res.Copied, want, res.Skipped)
	}
	joined := strings.Join(res.Skipped, "\n")
	for _, s := range []string{".env.link (symbolic link", ".env.test (exists"} {
		if !strings.Contains(joined, s) {
			t.Errorf("skipped %v lacks %q", res.Skipped, s)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "services/api/.env")); string(b) != "B=1\n" {
		t.Fatalf("nested copy %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(wt, ".env.test")); string(b) != "mine\n" {
		t.Fatalf("overwrote %q", b)
	}
	if st, _ := os.Stat(filepath.Join(wt, ".env")); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode())
	}
	for _, p := range []string{".env.link", "linkdir", "node_modules"} {
		if _, err := os.Lstat(filepath.Join(wt, p)); err == nil {
			t.Errorf("%s was copied", p)
		}
	}
}

func TestParseGlobsRefusesEscapes(t *testing.T) {
	for _, bad := range []string{"/etc/passwd", "../x", "a/../../b", "[unclosed"} {
		if _, err := ParseGlobs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseCommandShellOnlyWhenNeeded(t *testing.T) {
	cases := []struct {
		src   string
		argv  []string
		shell bool
	}{
		{"npm ci", []string{"npm", "ci"}, false},
		{`./setup.sh "two words" 'single $x'`, []string{"./setup.sh", "two words", "single $x"}, false},
		{"npm ci && npm run build", nil, true},
		{"echo $HOME", nil, true},
		{"cp *.example .", nil, true},
		{"make > log", nil, true},
		{"A=1 make", nil, true},
		{"-rf", nil, true},
	}
	for _, c := range cases {
		got, err := ParseCommand(c.src)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got.Shell != c.shell {
			t.Errorf("%q: shell %v", c.src, got.Shell)
		}
		if c.shell && !reflect.DeepEqual(got.Argv, []string{ShellPath, "-c", "--", c.src}) {
			t.Errorf("%q: argv %q", c.src, got.Argv)
		}
		if !c.shell && !reflect.DeepEqual(got.Argv, c.argv) {
			t.Errorf("%q: argv %q", c.src, got.Argv)
		}
	}
	if _, err := ParseCommand("echo 'unclosed"); err == nil {
		t.Error("bad syntax accepted")
	}
}

func TestRunReportsFailureAndKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	c, _ := ParseCommand("echo out; echo err >&2; sleep 300 & echo $! > bg.pid; exit 3")
	var out bytes.Buffer
	res := Run(context.Background(), c, dir, nil, &out)
	if res.Code != 3 || res.OK() {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(out.String(), "out\n") || !strings.Contains(out.String(), "err\n") {
		t.Fatalf("output %q", out.String())
	}
	b, _ := os.ReadFile(filepath.Join(dir, "bg.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatalf("pid %q", b)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil && !zombie(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("background child %d survived", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	c2, _ := ParseCommand("sleep 30")
	if res := Run(ctx, c2, dir, nil, &out); res.OK() || !strings.Contains(res.Error, "stopped") || res.Stopped {
		t.Fatalf("timed-out run %+v (not Stopped: it was not cancelled)", res)
	}
	sctx, stop := context.WithCancelCause(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); stop(errors.New("the task was stopped")) }()
	if res := Run(sctx, c2, dir, nil, &out); !res.Stopped || res.Error != "stopped: the task was stopped" {
		t.Fatalf("cancelled run %+v", res)
	}
	if res := Run(context.Background(), Command{Argv: []string{"/no/such/binary"}}, dir, nil, &out); res.OK() {
		t.Fatal("missing binary ran")
	}
}

func zombie(pid int) bool { return !proc.Alive(pid) }

func frame(t *testing.T, f Frame) []byte {
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNormalizerMessageAndReplay(t *testing.T) {
	cmd, _ := ParseCommand("npm ci")
	frames := [][]byte{
		frame(t, Frame{Type: "start", ID: "s1", Command: &cmd, Copy: &CopyResult{Copied: []string{".env"}}}),
		frame(t, Frame{Type: "output", ID: "s1", Data: "installing\n"}),
		frame(t, Frame{Type: "output", ID: "s1", Data: strings.Repeat("x", 3*OutputCap)}),
		frame(t, Frame{Type: "end", ID: "s1", Result: &Result{Code: 2}, Required: true}),
	}
	n := &Normalizer{}
	var last *agent.Message
	for _, f := range frames {
		for _, ev := range n.Feed(f) {
			last = ev.Message
		}
	}
	if last == nil || len(last.Parts) != 2 {
		t.Fatalf("message %+v", last)
	}
	use, res := last.Parts[0], last.Parts[1]
	if use.State != agent.ToolError || use.Kind != agent.ToolExecute || !res.IsError {
		t.Fatalf("parts %+v", last.Parts)
	}
	text := res.TextContent()
	if !strings.Contains(text, "setup failed (exit code 2); the agent was not started") || len(text) > OutputCap+200 ||
		!strings.Contains(text, "earlier bytes not shown") {
		t.Fatalf("result text (%d bytes) %q...", len(text), text[:80])
	}
	// Re-normalization from the joined raw frames gives the same message.
	again := &Normalizer{}
	var replay *agent.Message
	for f, err := range Format().Split(bytes.NewReader(bytes.Join(frames, []byte("\n")))) {
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range again.Feed(f) {
			replay = ev.Message
		}
	}
	if !reflect.DeepEqual(replay, last) {
		t.Fatal("replay differs")
	}
	if evs := n.Feed([]byte("not json")); len(evs) != 1 || evs[0].Type != agent.EventError {
		t.Fatalf("bad frame: %+v", evs)
	}
}
