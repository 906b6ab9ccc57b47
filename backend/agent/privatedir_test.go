package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// NewSecurePrivateDir is under the user's cache dir (not the temp dir,
// which Gemini CLI refuses as a settings file's parent), mode 0700.
func TestNewSecurePrivateDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	d, err := NewSecurePrivateDir("gemini-mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	base, err := os.UserCacheDir() // XDG_CACHE_HOME on Linux, under HOME on macOS
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(base, "jean-claude", "private") + string(filepath.Separator)
	if !strings.HasPrefix(d.Path, want) {
		t.Errorf("dir %s, want under %s", d.Path, want)
	}
	for _, p := range []string{d.Path, filepath.Dir(d.Path)} {
		st, err := os.Stat(p)
		if err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want 0700", p, st.Mode(), err)
		}
	}
	f, err := d.Write("settings.json", []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(f); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file %v %v", st, err)
	}
	d.Remove()
	if _, err := os.Stat(d.Path); !os.IsNotExist(err) {
		t.Errorf("dir not removed: %v", err)
	}
}

// The next start removes the private dirs of apps that are gone (a crash
// leaves them, with their token), and no other: this app's, another live
// app's, a recent legacy one, and whatever else lives in the temp dir.
func TestSweepPrivateDirs(t *testing.T) {
	tmp, cache := t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := strconv.Itoa(cmd.Process.Pid) // reaped: gone
	live := strconv.Itoa(os.Getppid())
	mine, err := NewPrivateDir("claude-mcp")
	if err != nil {
		t.Fatal(err)
	}
	mineSecure, err := NewSecurePrivateDir("gemini-mcp")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := os.UserCacheDir()
	secure := filepath.Join(base, "jean-claude", "private")
	mk := func(dir, name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "mcp.json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := []string{
		mk(tmp, "jean-claude-private-claude-mcp-p"+dead+"-123", 0),
		mk(secure, "gemini-mcp-p"+dead+"-456", 0),
		mk(tmp, "jean-claude-claude-mcp-1025436279", 48*time.Hour),
		mk(secure, "gemini-mcp-98765", 48*time.Hour),
	}
	kept := []string{
		mine.Path, mineSecure.Path,
		mk(tmp, "jean-claude-private-claude-mcp-p"+live+"-789", 0),
		mk(tmp, "jean-claude-claude-mcp-1054225632", time.Hour),
		mk(tmp, "jean-claude-e2e-p"+dead+"-1", 48*time.Hour),
		mk(tmp, "other-mcp-p"+dead+"-1", 48*time.Hour),
		mk(tmp, "claude-mcp-12345", 48*time.Hour), // not ours
	}
	removed, err := SweepPrivateDirs(24 * time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	slices.Sort(gone)
	if !slices.Equal(removed, gone) {
		t.Errorf("removed %v, want %v", removed, gone)
	}
	for _, p := range gone {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if !strings.Contains(filepath.Base(mine.Path), "-p"+strconv.Itoa(os.Getpid())+"-") {
		t.Errorf("%s does not name its app", mine.Path)
	}
}
