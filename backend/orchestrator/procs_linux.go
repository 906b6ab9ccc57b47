package orchestrator

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procInfo is what /proc/PID/stat says about a process.
type procInfo struct {
	pid, pgid  int
	ppid       int
	startTicks uint64
	zombie     bool
}

func readProc(pid int) (procInfo, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procInfo{}, fmt.Errorf("odd /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	// After "(comm)": state(0) ppid(1) pgrp(2) ... starttime is field 22
	// of the whole line, index 19 here.
	if len(f) < 20 {
		return procInfo{}, fmt.Errorf("short /proc/%d/stat", pid)
	}
	pgid, _ := strconv.Atoi(f[2])
	ppid, _ := strconv.Atoi(f[1])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return procInfo{pid: pid, pgid: pgid, ppid: ppid, startTicks: start, zombie: f[0] == "Z"}, nil
}

// processStart returns the start time of pid (0 when unknown).
func processStart(pid int) uint64 {
	p, err := readProc(pid)
	if err != nil {
		return 0
	}
	return p.startTicks
}

// killLeftovers SIGKILLs what is left of the process group a dead app's
// agent led: pid is the recorded leader (its group id), start its start
// time. A process counts only when it is in that group and started no
// earlier than the leader, so a pid reused since is never touched. It
// returns how many processes it killed.
func killLeftovers(pid int, start uint64) (int, error) {
	if pid <= 1 || start == 0 {
		return 0, nil
	}
	if leader, err := readProc(pid); err == nil && !leader.zombie && leader.startTicks != start {
		return 0, nil // the pid was reused: that group is someone else's
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		info, err := readProc(p)
		if err != nil || info.zombie || info.pgid != pid || info.startTicks < start {
			continue
		}
		if syscall.Kill(p, syscall.SIGKILL) == nil {
			n++
		}
	}
	return n, nil
}

// ours reports whether pid is a child of this app (started since it runs).
func ours(pid int) bool {
	p, err := readProc(pid)
	return err == nil && p.ppid == os.Getpid()
}
