package relay

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

func killPid(pid int) error      { return ignoreGone(syscall.Kill(pid, syscall.SIGKILL)) }
func killGroupPid(pid int) error { return ignoreGone(syscall.Kill(-pid, syscall.SIGKILL)) }

func ignoreGone(err error) error {
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// pidAlive reports whether pid runs (a zombie counts as gone).
func pidAlive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + itoa(pid) + "/stat")
	if err != nil {
		return true // not Linux: signal 0 is all we have
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for n >= 10 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	i--
	b[i] = byte('0' + n)
	return string(b[i:])
}

// KillAgent ends a relay's agent group (after the relay itself died).
func (m Meta) KillAgent() error {
	if m.AgentPID <= 0 {
		return nil
	}
	return killGroupPid(m.AgentPID)
}
