package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// pssByProcess is PSS in MB by process name (comm), over a process tree.
type pssByProcess map[string]float64

func (p pssByProcess) total() float64 {
	var t float64
	for _, v := range p {
		t += v
	}
	return t
}

func (p pssByProcess) String() string {
	names := make([]string, 0, len(p))
	for n := range p {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return p[names[i]] > p[names[j]] })
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %.1f", n, p[n]))
	}
	return strings.Join(parts, ", ")
}

// treePSS sums Pss from /proc/PID/smaps_rollup over root's descendants,
// leaving out the session's dbus-daemon (the launcher, dbus-run-session,
// is root itself and not counted either): the app and its WebKit processes.
func treePSS(root int) (pssByProcess, error) {
	out := pssByProcess{}
	for _, pid := range descendants(root) {
		comm := readComm(pid)
		if comm == "" || comm == "dbus-daemon" {
			continue
		}
		kb, err := pssKB(pid)
		if err != nil {
			continue // exited meanwhile
		}
		out[comm] += float64(kb) / 1024
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no process of the app found under pid %d", root)
	}
	return out, nil
}

func readComm(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func pssKB(pid int) (int, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "Pss:" {
			return strconv.Atoi(fields[1])
		}
	}
	return 0, fmt.Errorf("no Pss in smaps_rollup of %d", pid)
}

// descendants lists every live process below pid, from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		rest := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(rest) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(rest[1])
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, children[p]...)
		queue = append(queue, children[p]...)
	}
	return out
}

// saveSmaps copies /proc/PID/smaps of every process below root (as treePSS
// counts them) to PREFIX-COMM.smaps.
func saveSmaps(root int, prefix string) error {
	for _, pid := range descendants(root) {
		comm := readComm(pid)
		if comm == "" || comm == "dbus-daemon" {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
		if err != nil {
			continue // exited meanwhile
		}
		if err := os.WriteFile(fmt.Sprintf("%s-%s.smaps", prefix, comm), b, 0o644); err != nil {
			return fmt.Errorf("save smaps: %w", err)
		}
	}
	return nil
}
