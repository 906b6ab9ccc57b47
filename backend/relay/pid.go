package relay

import (
	"errors"
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

// KillAgent ends a relay's agent group (after the relay itself died).
func (m Meta) KillAgent() error {
	if m.AgentPID <= 0 {
		return nil
	}
	return killGroupPid(m.AgentPID)
}
