package term

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

func (r *rec) chunks() []Output {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Output(nil), r.all...)
}

func TestResizeIsSeenByTheProgram(t *testing.T) {
	r := &rec{}
	m := NewManager(r)
	t.Cleanup(func() { m.CloseAll(context.Background()) })
	id, err := m.Start(Spec{Path: "/bin/sh", Env: []string{"PATH=/usr/bin:/bin", "PS1=$ "}, Cols: 80, Rows: 24, Owner: "task:a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Resize(id, 132, 43); err != nil {
		t.Fatal(err)
	}
	if c, rw, err := m.Size(id); err != nil || c != 132 || rw != 43 {
		t.Fatalf("size %dx%d %v", c, rw, err)
	}
	if err := m.Write(id, []byte("stty size\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "stty size", func() bool { return strings.Contains(r.output(), "43 132") })
	if in := m.List("task:a"); len(in) != 1 || in[0].Cols != 132 || in[0].Rows != 43 {
		t.Fatalf("list %+v", in)
	}
}

func TestScrollbackReplayMatchesTheLiveStream(t *testing.T) {
	r := &rec{}
	m := NewManager(r)
	t.Cleanup(func() { m.CloseAll(context.Background()) })
	s := helper("spam")
	s.Scrollback = 16 << 10
	id, err := m.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "spam", func() bool { return strings.Contains(r.output(), "spam done") })
	snap, err := m.Snapshot(id)
	if err != nil {
		t.Fatal(err)
	}
	live := r.output()
	if snap.End != int64(len(live)) {
		t.Fatalf("snapshot ends at %d, %d bytes were emitted", snap.End, len(live))
	}
	if len(snap.Data) > 16<<10 || !bytes.HasSuffix([]byte(live), snap.Data) || !bytes.HasPrefix(snap.Data, []byte("line ")) {
		t.Fatalf("snapshot of %d bytes is not the tail of the stream on a line start: %q", len(snap.Data), snap.Data[:20])
	}
	// Offsets are contiguous: a window replaying the snapshot can skip
	// exactly the chunks it already has.
	var off int64
	for _, c := range r.chunks() {
		if c.Offset != off {
			t.Fatalf("chunk at %d, expected %d", c.Offset, off)
		}
		off += int64(len(c.Data))
	}
}

func TestCloseOwnerKillsOnlyThatTasksProcesses(t *testing.T) {
	r := &rec{}
	m := NewManager(r)
	t.Cleanup(func() { m.CloseAll(context.Background()) })
	mine, other := helper("hang"), helper("hang")
	mine.Owner, other.Owner = "task:1", "task:2"
	idMine, _ := m.Start(mine)
	m.Start(mine)
	idOther, _ := m.Start(other)
	waitFor(t, "children", func() bool { return strings.Count(r.output(), "child=") == 3 })
	pids := map[string]int{}
	for _, c := range r.chunks() {
		if i := bytes.Index(c.Data, []byte("child=")); i >= 0 {
			pid, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(c.Data[i+6:]), "\r", 2)[0]))
			pids[c.ID] = pid
		}
	}
	if err := m.CloseOwner(context.Background(), "task:1"); err != nil {
		t.Fatal(err)
	}
	if got := m.List("task:1"); len(got) != 0 {
		t.Fatalf("task 1 still has %v", got)
	}
	if got := m.List("task:2"); len(got) != 1 || got[0].ID != idOther {
		t.Fatalf("task 2 has %v", got)
	}
	waitFor(t, "task 1's grandchild gone", func() bool { return !proc.Alive(pids[idMine]) })
	if !proc.Alive(pids[idOther]) {
		t.Fatal("another task's process was killed")
	}
	m.CloseAll(context.Background())
	waitFor(t, "task 2's grandchild gone", func() bool { return !proc.Alive(pids[idOther]) })
}

// An interactive shell puts a background job in a process group of its
// own; closing the app (CloseAll) still ends it: the whole session goes.
func TestCloseAllEndsAnInteractiveShellsBackgroundJobs(t *testing.T) {
	r := &rec{}
	m := NewManager(r)
	id, err := m.Start(Spec{Path: "/bin/sh", Args: []string{"-i"}, Env: []string{"PATH=/usr/bin:/bin", "PS1=$ "}, Owner: "task:x"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Write(id, []byte("set -m; sleep 300 & echo JOB=$!\r")); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`JOB=(\d+)`)
	waitFor(t, "job pid", func() bool { return re.MatchString(r.output()) })
	pid, _ := strconv.Atoi(re.FindStringSubmatch(r.output())[1])
	if pid <= 0 || !proc.Alive(pid) {
		t.Fatalf("job pid %d", pid)
	}
	m.CloseAll(context.Background())
	waitFor(t, "background job gone", func() bool { return !proc.Alive(pid) })
}
