package mcpserver

import (
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"slices"

	"github.com/jean-claude/jean-claude/backend/atomicfile"
)

// state is Options.StateFile: where the server listens and each task's
// valid token hashes (never a token), for the next app.
type state struct {
	Addr  string              `json:"addr"`
	Tasks map[string][]string `json:"tasks"`
	// unreadable: the file exists but could not be read (not saved).
	unreadable bool
}

// loadState reads the state file; a missing or unreadable one is an empty
// state (logged when it exists but cannot be read).
func loadState(path string, log *slog.Logger) state {
	var st state
	if path == "" {
		return st
	}
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &st)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		log.Warn("mcpserver: the previous app's server state is unreadable; agents that outlived it lose the Jean-Claude tools", "file", path, "err", err)
		return state{Tasks: map[string][]string{}, unreadable: true}
	}
	if st.Tasks == nil {
		st.Tasks = map[string][]string{}
	}
	return st
}

// listen listens on addr (the previous app's) when it is a loopback
// address still free, else on a random loopback port.
func listen(addr string, log *slog.Logger) (net.Listener, error) {
	if host, _, err := net.SplitHostPort(addr); err == nil && host == "127.0.0.1" {
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			return ln, nil
		}
		log.Warn("mcpserver: the previous app's address is taken; agents that outlived it lose the Jean-Claude tools", "addr", addr, "err", err)
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// save writes the state file (mode 0600, replaced whole); a failure is
// logged: the app works on, only agents that outlive it would lose the
// tools.
func (s *Server) save() {
	if s.opt.StateFile == "" {
		return
	}
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	st := state{Addr: s.ln.Addr().String(), Tasks: map[string][]string{}}
	s.mu.Lock()
	for id, h := range s.byTask {
		st.Tasks[id] = append(st.Tasks[id], h)
	}
	for _, m := range []map[string][]string{s.adopted, s.kept} {
		for id, hs := range m {
			st.Tasks[id] = append(st.Tasks[id], hs...)
		}
	}
	s.mu.Unlock()
	for id, hs := range st.Tasks {
		slices.Sort(hs)
		st.Tasks[id] = slices.Compact(hs)
	}
	data, _ := json.Marshal(st)
	if err := atomicfile.Write(s.opt.StateFile, data); err != nil {
		s.opt.Logger.Warn("mcpserver: the server state for the next app was not written; agents that outlive this app would lose the Jean-Claude tools", "file", s.opt.StateFile, "err", err)
	}
}
