package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestSweepTmpRemovesOnlyDeadMakers: a private directory is removed when
// the process named in it is gone or its pid now belongs to a later
// process; one of a running maker, one of this process, and anything not
// named like a private directory stay.
func TestSweepTmpRemovesOnlyDeadMakers(t *testing.T) {
	base := t.TempDir()
	ours, err := MakeTmp(base)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(ours); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("MakeTmp = %s: %v, %v; want a directory of mode 0700", ours, fi, err)
	}
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill(); sleeper.Wait() })
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	mk := func(name string) string {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(p, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "sub", "f.so"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := []string{
		mk(fmt.Sprintf("%s%d-%d-a1", tmpPrefix, done.Process.Pid, StartTicks(self))), // its maker exited
	}
	kept := []string{
		filepath.Base(ours),
		filepath.Base(mk(fmt.Sprintf("%s%d-%d-b2", tmpPrefix, sleeper.Process.Pid, StartTicks(sleeper.Process.Pid)))),
		filepath.Base(mk("jean-claude-notours")),
		filepath.Base(mk("other-dir")),
	}
	if runtime.GOOS == "linux" { // start times known: a reused pid is told apart
		gone = append(gone, mk(fmt.Sprintf("%s%d-%d-c3", tmpPrefix, self, StartTicks(self)+1)))
	}
	file := fmt.Sprintf("%s%d-%d-file", tmpPrefix, done.Process.Pid, 0)
	if err := os.WriteFile(filepath.Join(base, file), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, file)

	if n := SweepTmp(base); n != len(gone) {
		t.Errorf("SweepTmp removed %d directories, want %d", n, len(gone))
	}
	for _, p := range gone {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v): its maker is gone", filepath.Base(p), err)
		}
	}
	entries, _ := os.ReadDir(base)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	slices.Sort(left)
	slices.Sort(kept)
	if !slices.Equal(left, kept) {
		t.Errorf("left %q, want %q", left, kept)
	}
}

func TestWithTmpReplacesTMPDIR(t *testing.T) {
	env := []string{"A=1", "TMPDIR=/old", "B=2", "TMPDIRX=keep"}
	got := WithTmp(env, "/new")
	want := []string{"A=1", "B=2", "TMPDIRX=keep", "TMPDIR=/new"}
	if !slices.Equal(got, want) {
		t.Errorf("WithTmp = %q, want %q", got, want)
	}
	if env[1] != "TMPDIR=/old" {
		t.Errorf("WithTmp changed its argument: %q", env)
	}
	t.Setenv("TMPDIR", "/inherited")
	if got := WithTmp(nil, "/new"); slices.Contains(got, "TMPDIR=/inherited") || got[len(got)-1] != "TMPDIR=/new" {
		t.Errorf("WithTmp(nil) = %q: want this process's environment with TMPDIR=/new", got)
	}
}
