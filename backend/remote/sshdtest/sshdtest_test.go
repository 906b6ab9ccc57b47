package sshdtest

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A forked child that still shows its parent's command line (here bash's
// subshell) is listed by RemoteProcesses and left out by RemoteCommands.
func TestRemoteCommandsLeavesOutForkedCopies(t *testing.T) {
	s := &Server{Home: t.TempDir()}
	cmd := exec.Command("bash", "-c", "(sleep 61; true); true")
	cmd.Env = append(os.Environ(), "HOME="+s.Home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	must(t, cmd.Start())
	// The whole group: the subshell and the sleep would outlive the shell.
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	// count is how many listed processes have exactly the command line cmd.
	count := func(list []string, cmd string) int {
		n := 0
		for _, p := range list {
			if _, line, _ := strings.Cut(p, " "); line == cmd {
				n++
			}
		}
		return n
	}
	const shell, sleep = "bash -c (sleep 61; true); true", "sleep 61"
	deadline := time.Now().Add(10 * time.Second)
	// Until the sleep has exec'd (before that it too shows the shell's
	// command line) and the subshell is there.
	for all := s.RemoteProcesses(); count(all, sleep) != 1 || count(all, shell) != 2; all = s.RemoteProcesses() {
		if time.Now().After(deadline) {
			t.Fatalf("processes: %v", all)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := s.RemoteCommands(); count(got, shell) != 1 || count(got, sleep) != 1 {
		t.Fatalf("RemoteCommands %v, want one bash and the sleep (all: %v)", got, s.RemoteProcesses())
	}
}
