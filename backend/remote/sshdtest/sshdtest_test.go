package sshdtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// A forked child that still shows its parent's command line (here bash's
// subshell) is listed by RemoteProcesses and left out by RemoteCommands.
func TestRemoteCommandsLeavesOutForkedCopies(t *testing.T) {
	s := &Server{Home: t.TempDir()}
	cmd := exec.Command("bash", "-c", "(sleep 61; true); true")
	cmd.Env = append(os.Environ(), "HOME="+s.Home)
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	count := func(list []string, sub string) int {
		n := 0
		for _, p := range list {
			if strings.Contains(p, sub) {
				n++
			}
		}
		return n
	}
	deadline := time.Now().Add(10 * time.Second)
	for count(s.RemoteProcesses(), "sleep 61") < 3 { // the bash, its subshell, the sleep
		if time.Now().After(deadline) {
			t.Fatalf("processes: %v", s.RemoteProcesses())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := s.RemoteCommands(); count(got, "bash -c") != 1 || count(got, "sleep 61") != 2 {
		t.Fatalf("RemoteCommands %v, want one bash and the sleep (all: %v)", got, s.RemoteProcesses())
	}
}
