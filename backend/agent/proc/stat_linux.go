package proc

import (
	"os"
	"strconv"
	"strings"
)

// StartTicks is pid's start time (field 22 of /proc/PID/stat, in clock
// ticks since boot), which tells a process from a later one that reused its
// pid; 0 when unknown.
func StartTicks(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}
