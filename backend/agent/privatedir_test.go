package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
