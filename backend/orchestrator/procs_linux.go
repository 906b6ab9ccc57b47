package orchestrator

import (
	"syscall"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// killLeftovers SIGKILLs what is left of the process group a dead app's
// agent led: pid is the recorded leader (its group id), start its start
// time. A process counts only when it is in that group and started no
// earlier than the leader, so a pid reused since is never touched. It
// returns how many processes it killed.
func killLeftovers(pid int, start uint64) (int, error) {
	if pid <= 1 || start == 0 {
		return 0, nil
	}
	if leader, err := proc.ReadStat(pid); err == nil && !leader.Zombie && leader.StartTicks != start {
		return 0, nil // the pid was reused: that group is someone else's
	}
	all, err := proc.List()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, info := range all {
		if info.Zombie || info.PGID != pid || info.StartTicks < start {
			continue
		}
		if syscall.Kill(info.PID, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n, nil
}
