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
	f := statFields(pid)
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}

// ParentPID is pid's parent (field 4 of /proc/PID/stat); 0 when unknown.
func ParentPID(pid int) int {
	f := statFields(pid)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// statFields is /proc/PID/stat's fields after "(comm)" (which may hold
// spaces and parentheses): state, ppid, pgrp, …; nil when unreadable.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}
