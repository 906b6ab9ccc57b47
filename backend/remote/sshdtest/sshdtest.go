// Package sshdtest starts a real OpenSSH server on 127.0.0.1 for tests: its
// own sshd_config, host key and a throwaway client key pair, and a
// separate HOME (a temporary folder) standing for "the remote" machine.
//
// Start skips the test loudly ("SKIPPED: …") when /usr/sbin/sshd or
// ssh-keygen is missing; `make test-remote` installs Debian's
// openssh-server first and sets JC_REQUIRE_SSHD=1, which turns the skip
// into a failure.
package sshdtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// Alias is the Host name the client config gives the server.
const Alias = "jc-remote"

// Server is a running sshd.
type Server struct {
	// Dir holds the server's and client's files (short path).
	Dir string
	// Home is the remote user's HOME.
	Home string
	// Port the server listens on (127.0.0.1).
	Port int
	// ConfigFile is an ssh client config with Host Alias (pass it as
	// remote.Options.ConfigFile).
	ConfigFile string
	// ControlDir is a short folder for ControlMaster sockets.
	ControlDir string

	cmd *exec.Cmd
}

// SSHD is the server binary.
const SSHD = "/usr/sbin/sshd"

// Available reports whether a test server can run here.
func Available() error {
	if _, err := os.Stat(SSHD); err != nil {
		return fmt.Errorf("no %s (Debian package openssh-server)", SSHD)
	}
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		return fmt.Errorf("no ssh-keygen: %w", err)
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		return fmt.Errorf("no ssh: %w", err)
	}
	return nil
}

// Start starts a server for the test and stops it (and everything it
// started) at cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("JC_REQUIRE_SSHD") != "" {
			t.Fatalf("sshd required (JC_REQUIRE_SSHD): %v", err)
		}
		t.Skipf("SKIPPED: real-sshd test: %v", err)
	}
	// Short base: unix socket paths are limited to ~104 bytes.
	dir, err := os.MkdirTemp("/tmp", "jcssh")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Dir: dir, Home: filepath.Join(dir, "home"), ControlDir: filepath.Join(dir, "cm")}
	t.Cleanup(func() { s.stop(t); os.RemoveAll(dir) })
	for _, d := range []string{s.Home, filepath.Join(s.Home, ".ssh"), s.ControlDir} {
		must(t, os.MkdirAll(d, 0o700))
	}
	keygen(t, filepath.Join(dir, "host_ed25519"))
	keygen(t, filepath.Join(dir, "id_ed25519"))
	pub, err := os.ReadFile(filepath.Join(dir, "id_ed25519.pub"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600))
	s.Port = freePort(t)
	s.writeConfigs(t)
	s.run(t)
	return s
}

func keygen(t testing.TB, path string) {
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "jc-test", "-f", path).CombinedOutput()
	if err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (s *Server) writeConfigs(t testing.TB) {
	user := currentUser(t)
	sshd := fmt.Sprintf(`ListenAddress 127.0.0.1:%d
HostKey %s/host_ed25519
PidFile %s/sshd.pid
AuthorizedKeysFile %s/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
AllowUsers %s
SetEnv HOME=%s JC_REMOTE_TEST=1
MaxSessions 50
MaxStartups 50
LogLevel INFO
`, s.Port, s.Dir, s.Dir, s.Dir, user, s.Home)
	must(t, os.WriteFile(filepath.Join(s.Dir, "sshd_config"), []byte(sshd), 0o600))
	hostPub, err := os.ReadFile(filepath.Join(s.Dir, "host_ed25519.pub"))
	must(t, err)
	kh := fmt.Sprintf("[127.0.0.1]:%d %s", s.Port, hostPub)
	must(t, os.WriteFile(filepath.Join(s.Dir, "known_hosts"), []byte(kh), 0o600))
	client := fmt.Sprintf(`Host %s
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile %s/known_hosts
  StrictHostKeyChecking yes
  GlobalKnownHostsFile /dev/null
  LogLevel ERROR
`, Alias, s.Port, user, s.Dir, s.Dir)
	s.ConfigFile = filepath.Join(s.Dir, "ssh_config")
	must(t, os.WriteFile(s.ConfigFile, []byte(client), 0o600))
}

func currentUser(t testing.TB) string {
	out, err := exec.Command("id", "-un").Output()
	must(t, err)
	return strings.TrimSpace(string(out))
}

// run starts sshd in the foreground (-D) in its own process group and
// waits until it accepts connections.
func (s *Server) run(t testing.TB) {
	// sshd insists on its privilege-separation folder.
	_ = os.MkdirAll("/run/sshd", 0o755)
	cmd := exec.Command(SSHD, "-D", "-e", "-f", filepath.Join(s.Dir, "sshd_config"))
	log, err := os.Create(filepath.Join(s.Dir, "sshd.log"))
	must(t, err)
	cmd.Stdout, cmd.Stderr = log, log
	// Own group; on Linux it also ends if the test process is killed.
	cmd.SysProcAttr = procAttr()
	must(t, cmd.Start())
	s.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.Port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(filepath.Join(s.Dir, "sshd.log"))
	t.Fatalf("sshd did not start: %s", b)
}

// Log is the server's log so far.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, "sshd.log"))
	return string(b)
}

func (s *Server) stop(t testing.TB) {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// RemoteProcesses lists processes (pid and command line) whose environment
// says they were started by this server's sessions (HOME=Home), other than
// sshd itself: what must be gone when a test ends.
func (s *Server) RemoteProcesses() []string { return pidLines(s.remoteProcs()) }

// RemoteCommands is RemoteProcesses without the processes whose parent is
// another listed process with the same command line: a child between its
// fork and its exec still shows its parent's command line (a server that runs
// git for a snapshot), so a count of servers must not take it for a second
// server.
func (s *Server) RemoteCommands() []string {
	ps := s.remoteProcs()
	line := make(map[int]string, len(ps))
	for _, p := range ps {
		line[p.pid] = p.line
	}
	var kept []remoteProc
	for _, p := range ps {
		if parent, ok := line[proc.ParentPID(p.pid)]; ok && parent == p.line {
			continue
		}
		kept = append(kept, p)
	}
	return pidLines(kept)
}

// remoteProc is one process of RemoteProcesses.
type remoteProc struct {
	pid  int
	line string // its command line, arguments joined by spaces
}

// pidLines is ps as "pid line" each.
func pidLines(ps []remoteProc) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("%d %s", p.pid, p.line))
	}
	return out
}

// remoteProcs reads /proc for the processes of RemoteProcesses.
func (s *Server) remoteProcs() []remoteProc {
	var ps []remoteProc
	pids, _ := proc.Pids()
	for _, pid := range pids {
		if pid == os.Getpid() {
			continue
		}
		dir := filepath.Join("/proc", strconv.Itoa(pid))
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !strings.Contains(string(env), "\x00HOME="+s.Home+"\x00") && !strings.HasPrefix(string(env), "HOME="+s.Home+"\x00") {
			continue
		}
		line, _ := proc.Cmdline(pid)
		if strings.HasPrefix(line, "sshd") || strings.HasPrefix(line, SSHD) {
			continue
		}
		ps = append(ps, remoteProc{pid: pid, line: line})
	}
	return ps
}

// WaitNoRemoteProcesses waits up to d for RemoteProcesses to be empty.
func (s *Server) WaitNoRemoteProcesses(ctx context.Context, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		left := s.RemoteProcesses()
		if len(left) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// LocalProcessesMatching lists local processes whose command line contains
// sub (for "no ssh left behind" checks).
func LocalProcessesMatching(sub string) []string {
	var out []string
	pids, _ := proc.Pids()
	for _, pid := range pids {
		line, err := proc.Cmdline(pid)
		if err != nil {
			continue
		}
		if strings.Contains(line, sub) {
			out = append(out, strconv.Itoa(pid)+" "+line)
		}
	}
	return out
}

// ListenerPID is the pid of the listening sshd (SIGSTOP it to make the
// host unreachable for new connections; sessions already open go on).
func (s *Server) ListenerPID() int { return s.cmd.Process.Pid }

// WaitNoLocalProcesses waits up to d for LocalProcessesMatching(sub) to be
// empty and returns what is left.
func WaitNoLocalProcesses(sub string, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		left := LocalProcessesMatching(sub)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}
