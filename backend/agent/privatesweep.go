package agent

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ownerPID finds the app's pid in a PrivateDir's name ("-p<pid>-").
var ownerPID = regexp.MustCompile(`-p([0-9]+)-[0-9]+$`)

// legacyPrivate are the names PrivateDirs had before they carried their
// app's pid: in the temp dir and under the cache dir.
var legacyPrivate = []*regexp.Regexp{
	regexp.MustCompile(`^jean-claude-(claude|gemini)-mcp-[0-9]+$`), // the temp dir
	regexp.MustCompile(`^gemini-mcp-[0-9]+$`),                      // under the cache dir
}

// SweepPrivateDirs removes the PrivateDirs (the MCP config files with
// their token) that apps no longer running left behind, as a crash or a
// kill does: those naming a pid that is gone, and those from before the
// pid was in the name once older than legacyAge. An agent that outlived
// its app behind a relay read its file at its start and needs it no more.
// It returns the dirs removed.
func SweepPrivateDirs(legacyAge time.Duration) ([]string, error) {
	bases := []string{os.TempDir()}
	if cache, err := os.UserCacheDir(); err == nil {
		bases = append(bases, securePrivateBase(cache))
	}
	var removed []string
	var errs []error
	for i, base := range bases {
		entries, err := os.ReadDir(base)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			name := e.Name()
			legacy := legacyPrivate[i].MatchString(name)
			if !e.IsDir() || i == 0 && !strings.HasPrefix(name, privatePrefix) && !legacy {
				continue
			}
			if !orphaned(e, legacy, legacyAge) {
				continue
			}
			p := filepath.Join(base, name)
			if err := os.RemoveAll(p); err != nil {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, p)
		}
	}
	return removed, errors.Join(errs...)
}

// orphaned: the dir's app is gone (or, for a legacy name, it is older
// than legacyAge).
func orphaned(e os.DirEntry, legacy bool, legacyAge time.Duration) bool {
	if m := ownerPID.FindStringSubmatch(e.Name()); m != nil {
		pid, err := strconv.Atoi(m[1])
		return err == nil && !pidAlive(pid)
	}
	if !legacy {
		return false
	}
	info, err := e.Info()
	return err == nil && time.Since(info.ModTime()) > legacyAge
}

// pidAlive: a process with that pid exists, perhaps another user's (not
// proc.Alive, which calls a process it may not signal gone: another
// user's dirs in the temp dir would then be tried at every start).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
