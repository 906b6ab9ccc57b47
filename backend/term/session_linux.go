package term

import (
	"os"
	"strconv"
	"strings"
	"syscall"
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

// sessionMembers lists the pids in session sid, from /proc/PID/stat
// (fields after the command: state ppid pgrp session ...).
func sessionMembers(sid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == sid {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 3 && f[3] == strconv.Itoa(sid) {
			out = append(out, pid)
		}
	}
	return out
}
