package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Private temporary directories. Every agent process gets a TMPDIR of its
// own, removed once its process group is gone: agent CLIs leave files in
// the temporary directory on every run and never remove them (OpenCode
// 1.18 unpacks a 5.4 MB native library into $TMPDIR each time its server
// searches files, Claude Code writes its --settings JSON to a
// claude-settings-*.json there per session), so without it a user's /tmp
// grows with every task.
//
// A directory is named after the process that made it (the app, or the
// relay that runs the agent): tmpPrefix, its pid and its start time, then
// a random part. One whose maker is gone (a crash of the app or of a relay
// before it could remove it) is removed by the next MakeTmp or SweepTmp in
// the same base directory.

const tmpPrefix = "jean-claude-"

// MakeTmp sweeps base (os.TempDir() when empty) and makes a private
// temporary directory in it for one agent process, mode 0700.
func MakeTmp(base string) (string, error) {
	if base == "" {
		base = os.TempDir()
	}
	SweepTmp(base)
	self := os.Getpid()
	dir, err := os.MkdirTemp(base, fmt.Sprintf("%s%d-%d-", tmpPrefix, self, StartTicks(self)))
	if err != nil {
		return "", fmt.Errorf("private temporary directory: %w", err)
	}
	return dir, nil
}

// SweepTmp removes the private temporary directories in base (os.TempDir()
// when empty) whose maker no longer runs, and returns how many it removed.
// Only directories of this user are touched; what cannot be read or
// removed is left as it is.
func SweepTmp(base string) int {
	if base == "" {
		base = os.TempDir()
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		pid, ticks, ok := tmpMaker(e.Name())
		if !ok || !e.IsDir() || makerRuns(pid, ticks) {
			continue
		}
		p := filepath.Join(base, e.Name())
		if !ownDir(p) {
			continue
		}
		if os.RemoveAll(p) == nil {
			n++
		}
	}
	return n
}

// tmpMaker reads a private directory's name: its maker's pid and start
// time.
func tmpMaker(name string) (pid int, ticks uint64, ok bool) {
	rest, found := strings.CutPrefix(name, tmpPrefix)
	if !found {
		return 0, 0, false
	}
	parts := strings.SplitN(rest, "-", 3)
	if len(parts) != 3 {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	ticks, err = strconv.ParseUint(parts[1], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return pid, ticks, true
}

// makerRuns tells whether the process that made a directory still runs:
// pid is alive and, where start times are known, started when the maker
// did (not a later process that reused the pid).
func makerRuns(pid int, ticks uint64) bool {
	if !Alive(pid) {
		return false
	}
	return ticks == 0 || StartTicks(pid) == ticks
}

// ownDir tells whether p is a directory (not a link) of this user.
func ownDir(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// WithTmp returns env (nil: this process's environment) with TMPDIR set
// to dir, replacing any TMPDIR it had. env itself is not changed.
func WithTmp(env []string, dir string) []string {
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+dir)
}
