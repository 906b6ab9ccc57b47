package relay

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
	"github.com/jean-claude/jean-claude/backend/atomicfile"
)

// Spec is what `jean-claude relay` reads as JSON on its stdin (never as
// flags: no user value becomes a command-line argument).
type Spec struct {
	// Dir is where the relay keeps its socket, meta and journal (the
	// app's data directory's relays/ folder, mode 0700).
	Dir string `json:"dir"`
	// ID names the relay's files (short: a unix socket path has ~107 bytes).
	ID     string `json:"id"`
	Token  string `json:"token"`
	TaskID string `json:"taskId"`
	Role   string `json:"role"`
	Name   string `json:"name"`
	// The agent: an executable and its arguments (never a shell).
	Path      string   `json:"path"`
	Args      []string `json:"args"`
	WorkDir   string   `json:"workDir"`
	Env       []string `json:"env"`
	Stdin     bool     `json:"stdin"`
	StdinData []byte   `json:"stdinData,omitempty"`
	// Extra is kept in the meta file for the app (OpenCode's server port).
	Extra map[string]string `json:"extra,omitempty"`

	WaitDelay   Duration `json:"waitDelay"`   // SIGTERM → SIGKILL (default 3s)
	IdleStop    Duration `json:"idleStop"`    // no app and no output this long: stop the agent (default 30 min; <0 never)
	IdleExit    Duration `json:"idleExit"`    // agent ended, no app this long: the relay exits, files kept (default 10 min)
	RotateBytes int64    `json:"rotateBytes"` // journal truncated once all is stored and it is larger (default 4 MiB)
	MaxUnacked  int64    `json:"maxUnacked"`  // journal bytes not stored by an app before stdout is no longer read (default 256 MiB)
	// AttachedBytes: while an app is attached, the relay reads the agent
	// only while fewer bytes than this wait for its acks (default 1 MiB,
	// beside the agent's 1 MiB pipe (server.startAgent); under a firehose
	// a window under a millisecond of output stalled the relay on every
	// ack round trip, BenchmarkRelayVsPipe). The relay then paces the
	// agent like a pipe would: a Stop leaves the app about this much (and
	// the pipe's) to store. With no app attached only MaxUnacked bounds it.
	AttachedBytes int64 `json:"attachedBytes"`
}

// Duration is a time.Duration as JSON nanoseconds.
type Duration = time.Duration

func (s *Spec) defaults() {
	if s.WaitDelay <= 0 {
		s.WaitDelay = 3 * time.Second
	}
	if s.IdleStop == 0 {
		s.IdleStop = 30 * time.Minute
	}
	if s.IdleExit <= 0 {
		s.IdleExit = 10 * time.Minute
	}
	if s.RotateBytes <= 0 {
		s.RotateBytes = 4 << 20
	}
	if s.MaxUnacked <= 0 {
		s.MaxUnacked = 256 << 20
	}
	if s.AttachedBytes <= 0 {
		s.AttachedBytes = 1 << 20
	}
}

func (s *Spec) check() error {
	switch {
	case s.Dir == "" || !filepath.IsAbs(s.Dir):
		return errors.New("relay: spec: dir must be absolute")
	case s.ID == "" || strings.ContainsAny(s.ID, "/.\x00"):
		return errors.New("relay: spec: bad id")
	case len(s.Token) < 16:
		return errors.New("relay: spec: token too short")
	case s.Path == "":
		return errors.New("relay: spec: no agent path")
	case len(filepath.Join(s.Dir, s.ID+".sock")) > 100:
		return fmt.Errorf("relay: spec: socket path %s too long", filepath.Join(s.Dir, s.ID+".sock"))
	}
	return nil
}

// Meta is the relay's meta file (<id>.json, mode 0600): how an app finds,
// authenticates to and cleans up after a relay.
type Meta struct {
	ID       string            `json:"id"`
	TaskID   string            `json:"taskId"`
	Role     string            `json:"role"`
	Name     string            `json:"name"`
	RelayPID int               `json:"relayPid"`
	AgentPID int               `json:"agentPid"` // also its process group
	Socket   string            `json:"socket"`
	Journal  string            `json:"journal"`
	Token    string            `json:"token"`
	Started  time.Time         `json:"started"`
	Extra    map[string]string `json:"extra,omitempty"`
}

// Paths of a relay's files.
func sockPath(dir, id string) string    { return filepath.Join(dir, id+".sock") }
func metaPath(dir, id string) string    { return filepath.Join(dir, id+".json") }
func journalPath(dir, id string) string { return filepath.Join(dir, id+".journal") }
func logPath(dir, id string) string     { return filepath.Join(dir, id+".log") }

// runFiles are relay id's files in dir but its log: its socket, meta,
// journal and the journal's exit record.
func runFiles(dir, id string) []string {
	j := journalPath(dir, id)
	return []string{sockPath(dir, id), metaPath(dir, id), j, exitPath(j)}
}

// removeFiles removes every file of relay id in dir, its log included.
func removeFiles(dir, id string) { removeAll(append(runFiles(dir, id), logPath(dir, id))...) }

// removeAll removes the files named, those missing included.
func removeAll(paths ...string) {
	for _, p := range paths {
		_ = os.Remove(p)
	}
}

func writeMeta(dir string, m Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(metaPath(dir, m.ID), b); err != nil {
		return fmt.Errorf("relay: meta: %w", err)
	}
	return nil
}

// ReadMeta reads a meta file.
func ReadMeta(path string) (Meta, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Meta{}, fmt.Errorf("relay: meta: %w", err)
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return Meta{}, fmt.Errorf("relay: meta %s: %w", path, err)
	}
	return m, nil
}

// List reads every relay meta file in dir (a missing dir is empty).
func List(dir string) ([]Meta, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Meta
	for _, n := range names {
		m, err := ReadMeta(n)
		if err != nil {
			continue // a torn file of a relay that died while writing it
		}
		out = append(out, m)
	}
	return out, nil
}

// Alive reports whether the relay process of m still runs (signal 0; a
// recycled pid is caught by the token check when dialing).
func (m Meta) Alive() bool {
	return proc.Alive(m.RelayPID)
}

// Remove deletes a relay's files (after its journal was taken).
func (m Meta) Remove() {
	dir := filepath.Dir(m.Journal) // the relay's dir: its socket and meta are there too (server.run)
	removeFiles(dir, m.ID)
}
