package services

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProjectPathMustBeAbsolute(t *testing.T) {
	f := newFixture(t)
	// A relative path that exists from the test's working directory is
	// refused all the same: it is never resolved against the app's cwd.
	for _, rel := range []string{"../..", ".", "some/dir", "./x"} {
		_, err := f.projects.Add(rel)
		if !errors.Is(err, ErrInvalidInput) || fieldOf(err) != "path" || !strings.Contains(err.Error(), "relative path") {
			t.Errorf("Add(%q): err = %v, want a 'relative path' input error", rel, err)
		}
		if _, err := f.projects.ExpandPath(rel); err == nil {
			t.Errorf("ExpandPath(%q) accepted", rel)
		}
	}
	ps, err := f.projects.List()
	if err != nil || len(ps) != 0 {
		t.Fatalf("projects after refusals: %v %v", ps, err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.Mkdir(filepath.Join(home, "code"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := f.projects.ExpandPath("~/code/")
	if err != nil || got != filepath.Join(home, "code") {
		t.Fatalf("ExpandPath(~/code/) = %q, %v", got, err)
	}
	p, err := f.projects.Add("~/code")
	if err != nil || p.Path != filepath.Join(home, "code") {
		t.Fatalf("Add(~/code) = %+v, %v", p, err)
	}
}
