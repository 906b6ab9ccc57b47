package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReadStat reads what /proc/PID/stat says about pid.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	// "pid (comm) state …": comm may hold spaces and parentheses, so the
	// fields start after the last ')': state(0) ppid(1) pgrp(2) session(3)
	// … starttime (field 22 of the whole line) at 19.
	s := string(b)
	open, i := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || i < open {
		return Stat{}, fmt.Errorf("proc: odd /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return Stat{}, fmt.Errorf("proc: short /proc/%d/stat", pid)
	}
	st := Stat{PID: pid, Comm: s[open+1 : i], Zombie: f[0] == "Z"}
	st.PPID, _ = strconv.Atoi(f[1])
	st.PGID, _ = strconv.Atoi(f[2])
	st.SID, _ = strconv.Atoi(f[3])
	st.StartTicks, _ = strconv.ParseUint(f[19], 10, 64)
	return st, nil
}

// Pids lists the processes that exist now (the numeric entries of /proc).
func Pids() ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out, nil
}

// List reads the stat of every process (those gone meanwhile left out).
func List() ([]Stat, error) {
	pids, err := Pids()
	if err != nil {
		return nil, err
	}
	out := make([]Stat, 0, len(pids))
	for _, pid := range pids {
		if st, err := ReadStat(pid); err == nil {
			out = append(out, st)
		}
	}
	return out, nil
}

// Cmdline is pid's command line, its arguments joined by spaces (as ps
// shows it); empty for a kernel thread or a zombie.
func Cmdline(pid int) (string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return "", err
	}
	return strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " "), nil
}
