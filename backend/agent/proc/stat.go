package proc

import (
	"errors"
	"syscall"
)

// Stat is what the system says about a process (Linux: /proc/PID/stat).
type Stat struct {
	PID, PPID, PGID, SID int
	Comm                 string // the command's name, as the kernel keeps it (at most 15 bytes)
	// StartTicks is the start time in clock ticks since boot, which tells a
	// process from a later one that reused its pid.
	StartTicks uint64
	Zombie     bool
}

// StartTicks is pid's start time (field 22 of /proc/PID/stat); 0 when
// unknown.
func StartTicks(pid int) uint64 {
	st, _ := ReadStat(pid)
	return st.StartTicks
}

// ParentPID is pid's parent (field 4 of /proc/PID/stat); 0 when unknown.
func ParentPID(pid int) int {
	st, _ := ReadStat(pid)
	return st.PPID
}

// Alive reports whether pid runs: signal 0 reaches it and it is not a
// zombie (exited, not reaped yet). Off Linux signal 0 is all there is.
func Alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	st, err := ReadStat(pid)
	if errors.Is(err, errors.ErrUnsupported) {
		return true
	}
	return err == nil && !st.Zombie
}
