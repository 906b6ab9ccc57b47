package proc

import (
	"errors"
	"io/fs"
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
// Relays are adopted or cleaned up by it: only a process known gone is
// not alive.
func Alive(pid int) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	st, err := ReadStat(pid)
	if err != nil {
		// Gone since the signal, or nothing to read (off Linux): the
		// signal's answer stands unless the process is known gone.
		return !errors.Is(err, fs.ErrNotExist)
	}
	return !st.Zombie
}
