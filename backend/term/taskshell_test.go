package term

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestUserShellIsValidated(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, bad := range []string{"", "sh", "/bin/../bin/sh", "/no/such/shell", "/etc/passwd", "/tmp", "-i"} {
		if got := UserShell(env(bad)); got != FallbackShell {
			t.Errorf("SHELL=%q gave %q", bad, got)
		}
	}
	if got := UserShell(env("/bin/sh")); got != "/bin/sh" {
		t.Errorf("a good shell was refused: %q", got)
	}
}

// A task's shells run the user's shell in the folder given, numbered in
// their titles, with the task's id in their environment; closing a task's
// shells leaves the other tasks' shells.
func TestTaskShells(t *testing.T) {
	t.Setenv("SHELL", "/bin/sh")
	r := &rec{}
	m := NewManager(r)
	t.Cleanup(func() { m.CloseAll(context.Background()) })
	dir := t.TempDir()
	a, err := m.OpenTaskShell("a", dir, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.OpenTaskShell("a", dir, 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	other, err := m.OpenTaskShell("b", t.TempDir(), 80, 24)
	if err != nil {
		t.Fatal(err)
	}
	if a.Title != "sh 1" || b.Title != "sh 2" || other.Title != "sh 1" || a.Cols != 80 || a.Rows != 24 {
		t.Fatalf("shells %+v %+v %+v", a, b, other)
	}
	if err := m.Write(a.ID, []byte("echo \"in $(pwd) for $JEAN_CLAUDE_TASK_ID\"\r")); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	waitFor(t, "pwd and the task id", func() bool {
		out := r.output()
		return strings.Contains(out, "in "+dir+" for a") || strings.Contains(out, "in "+real+" for a")
	})
	if got := m.TaskShells("a"); len(got) != 2 || got[0].ID != a.ID || got[1].ID != b.ID {
		t.Fatalf("task a's shells %+v, want a then b", got)
	}
	if err := m.CloseTaskShells(t.Context(), "a"); err != nil {
		t.Fatal(err)
	}
	if got := m.TaskShells("a"); len(got) != 0 {
		t.Errorf("task a's shells left: %+v", got)
	}
	if got := m.TaskShells("b"); len(got) != 1 || got[0].ID != other.ID {
		t.Errorf("task b's shells %+v, want its one shell kept", got)
	}
}
