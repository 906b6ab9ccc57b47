package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"
)

// ReadStat reads the fields after the command's name, which may hold
// spaces and parentheses: a child named "a) (b c" in its own session;
// List has it; Alive counts it until it is a zombie.
func TestReadStat(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "a) (b c")
	if err := os.WriteFile(name, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	var st Stat
	for i := 0; i < 100; i++ { // until the exec: before it, the child is a copy of the test
		if st, err = ReadStat(pid); err == nil && st.Comm == "a) (b c" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	want := Stat{PID: pid, PPID: os.Getpid(), PGID: pid, SID: pid, Comm: "a) (b c", StartTicks: st.StartTicks}
	if err != nil || st != want || st.StartTicks == 0 {
		t.Fatalf("ReadStat = %+v, %v; want %+v with a start time", st, err, want)
	}
	all, err := List()
	if err != nil || !slices.Contains(all, want) {
		t.Fatalf("List (%d processes, %v) lacks %+v", len(all), err, want)
	}
	if line, err := Cmdline(pid); line != name+" 30" {
		t.Fatalf("Cmdline = %q, %v; want %q", line, err, name+" 30")
	}
	if StartTicks(pid) != st.StartTicks || ParentPID(pid) != os.Getpid() || !Alive(pid) {
		t.Fatalf("StartTicks %d, ParentPID %d, Alive %v", StartTicks(pid), ParentPID(pid), Alive(pid))
	}
	_ = cmd.Process.Kill() // not waited for yet: a zombie
	for i := 0; i < 500 && !st.Zombie; i++ {
		time.Sleep(10 * time.Millisecond)
		if st, err = ReadStat(pid); err != nil {
			t.Fatalf("after the kill: %v", err)
		}
	}
	if !st.Zombie {
		t.Fatalf("after the kill: %+v; want a zombie", st)
	}
	if Alive(pid) {
		t.Fatal("a zombie is alive")
	}
	if _, err := ReadStat(1 << 30); err == nil || Alive(1<<30) {
		t.Fatal("a pid that does not exist: no error, or alive")
	}
}
