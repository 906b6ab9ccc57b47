package opener

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"https://example.com/docs", "http://example.org/raw", "mailto:a@b.c", "HTTPS://X.Y/z?q=1#f"} {
		if _, err := CheckURL(ok); err != nil {
			t.Errorf("CheckURL(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"file:///etc/passwd", "javascript:alert(1)", "vscode://x", "/relative", "", "https://", "mailto:", "-x"} {
		if _, err := CheckURL(bad); !errors.Is(err, ErrRefused) {
			t.Errorf("CheckURL(%q) = %v, want ErrRefused", bad, err)
		}
	}
}

func TestResolveStaysInside(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "src", "a.go"), []byte("x"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644))
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link")))
	realRoot, _ := filepath.EvalSymlinks(root)
	for _, p := range []string{"src/a.go", filepath.Join(root, "src", "a.go"), "./src/../src/a.go"} {
		got, err := Resolve(root, p)
		if err != nil || got != filepath.Join(realRoot, "src", "a.go") {
			t.Errorf("Resolve(%q) = %q, %v", p, got, err)
		}
	}
	for _, p := range []string{"../" + filepath.Base(outside) + "/secret", filepath.Join(outside, "secret"), "link", "/etc/passwd", "-rf"} {
		if got, err := Resolve(root, p); err == nil {
			t.Errorf("Resolve(%q) = %q, want refused", p, got)
		}
	}
}

func TestEditorCommand(t *testing.T) {
	env := func(vars map[string]string, onPath ...string) Env {
		return Env{
			Getenv: func(k string) string { return vars[k] },
			LookPath: func(f string) (string, error) {
				for _, p := range onPath {
					if p == f {
						return "/usr/bin/" + f, nil
					}
				}
				return "", errors.New("not found")
			},
		}
	}
	cases := []struct {
		choice string
		env    Env
		line   int
		want   []string
	}{
		{EditorAuto, env(map[string]string{"VISUAL": "nvim", "EDITOR": "nano"}), 12, []string{"nvim", "+12", "/w/a.go"}},
		{EditorAuto, env(map[string]string{"EDITOR": "emacsclient -n"}), 3, []string{"emacsclient", "-n", "+3", "/w/a.go"}},
		{EditorAuto, env(nil, "code"), 7, []string{"code", "-g", "/w/a.go:7"}},
		{EditorAuto, env(nil), 7, []string{"xdg-open", "/w/a.go"}},
		{EditorVSCode, env(map[string]string{"VISUAL": "vim"}), 0, []string{"code", "/w/a.go"}},
		{EditorSystem, env(map[string]string{"VISUAL": "vim"}), 5, []string{"xdg-open", "/w/a.go"}},
		{EditorEnv, env(map[string]string{"EDITOR": "code --wait"}), 5, []string{"code", "--wait", "-g", "/w/a.go:5"}},
	}
	for _, c := range cases {
		got, err := EditorCommand(c.choice, "/w/a.go", c.line, c.env)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("EditorCommand(%s, line %d) = %q, %v; want %q", c.choice, c.line, got, err, c.want)
		}
	}
	if _, err := EditorCommand(EditorEnv, "/w/a.go", 1, env(nil)); err == nil {
		t.Error("env editor without $VISUAL/$EDITOR must fail")
	}
	if _, err := EditorCommand(EditorAuto, "-rf", 1, env(nil)); !errors.Is(err, ErrRefused) {
		t.Error("a relative path (possibly a flag) must be refused")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
