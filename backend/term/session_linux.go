package term

import (
	"syscall"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// killSession kills every process whose session id is sid (the terminal's
// program is its session's leader), each with its group. A process that
// left the session (setsid, a daemon) is out of reach by design.
func killSession(sid int) {
	for _, pid := range sessionMembers(sid) {
		_ = syscall.Kill(-pid, syscall.SIGKILL) // its group, when it leads one
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// sessionMembers lists the pids in session sid.
func sessionMembers(sid int) []int {
	all, _ := proc.List()
	var out []int
	for _, st := range all {
		if st.SID == sid && st.PID != sid {
			out = append(out, st.PID)
		}
	}
	return out
}
