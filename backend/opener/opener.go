// Package opener hands things to the desktop: a link to the default browser,
// a file to the user's editor (at a line), a folder to the system terminal or
// file manager. It decides what may be opened and builds the command; it
// never runs a shell, starts each program in its own process group, and no
// user value can become a command-line flag (paths are absolute, URLs are
// checked, a line is a number).
package opener

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrRefused: the URL or path may not be opened (its message says why).
var ErrRefused = errors.New("refused")

// Editor choices (the "opener.editor" setting).
const (
	EditorAuto   = "auto"     // $VISUAL, $EDITOR, then VS Code, then the system default
	EditorEnv    = "env"      // $VISUAL or $EDITOR
	EditorVSCode = "code"     // VS Code: code -g path:line
	EditorSystem = "xdg-open" // the system default application
)

// Editors lists the editor choices in display order.
var Editors = []string{EditorAuto, EditorEnv, EditorVSCode, EditorSystem}

// CheckURL returns u when it is an http, https or mailto link; anything
// else (file:, javascript:, custom schemes, relative) is refused.
func CheckURL(u string) (string, error) {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil {
		return "", fmt.Errorf("opener: not a link: %w", ErrRefused)
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https":
		if p.Host == "" {
			return "", fmt.Errorf("opener: link without a host: %w", ErrRefused)
		}
	case "mailto":
		if p.Opaque == "" {
			return "", fmt.Errorf("opener: mailto without an address: %w", ErrRefused)
		}
	default:
		return "", fmt.Errorf("opener: only http, https and mailto links are opened, not %q: %w", p.Scheme+":", ErrRefused)
	}
	return p.String(), nil
}

// Resolve returns path p (absolute, or relative to root) as an absolute path
// inside root, symlinks resolved, or ErrRefused when it is outside. The
// file must exist.
func Resolve(root, p string) (string, error) {
	if root == "" || p == "" {
		return "", fmt.Errorf("opener: no path: %w", ErrRefused)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("opener: folder %s: %w", root, err)
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, p)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(abs))
	if err != nil {
		return "", fmt.Errorf("opener: %s: %w", p, err)
	}
	if !inside(realRoot, real) {
		// An absolute path the agent printed may name the project folder
		// while the root is the task's worktree: only inside root is opened.
		return "", fmt.Errorf("opener: %s is outside the task's folder: %w", p, ErrRefused)
	}
	return real, nil
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// Env is what the commands depend on: environment variables and PATH lookup.
type Env struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
}

// OSEnv is the process environment.
func OSEnv() Env { return Env{Getenv: os.Getenv, LookPath: exec.LookPath} }

// EditorCommand returns the argv that opens abs (an absolute path) at line
// (0 when unknown) with the chosen editor.
func EditorCommand(choice, abs string, line int, env Env) ([]string, error) {
	if !filepath.IsAbs(abs) {
		return nil, fmt.Errorf("opener: not an absolute path: %w", ErrRefused)
	}
	envEditor := func() []string {
		for _, k := range []string{"VISUAL", "EDITOR"} {
			if f := strings.Fields(env.Getenv(k)); len(f) > 0 {
				return f
			}
		}
		return nil
	}
	code := func() []string {
		if line > 0 {
			return []string{"code", "-g", abs + ":" + strconv.Itoa(line)}
		}
		return []string{"code", abs}
	}
	system := []string{"xdg-open", abs}
	switch choice {
	case EditorVSCode:
		return code(), nil
	case EditorSystem:
		return system, nil
	case EditorEnv:
		if e := envEditor(); e != nil {
			return withLine(e, abs, line), nil
		}
		return nil, fmt.Errorf("opener: neither $VISUAL nor $EDITOR is set: %w", ErrRefused)
	}
	if e := envEditor(); e != nil {
		return withLine(e, abs, line), nil
	}
	if _, err := env.LookPath("code"); err == nil {
		return code(), nil
	}
	return system, nil
}

// withLine adds the line the way most editors take it: "+LINE path"
// (vi, vim, nvim, emacs, nano, micro, kak); VS Code-like editors get -g.
func withLine(editor []string, abs string, line int) []string {
	out := append([]string{}, editor...)
	base := filepath.Base(editor[0])
	switch {
	case line <= 0:
		return append(out, abs)
	case base == "code" || base == "codium" || base == "code-insiders" || base == "cursor":
		return append(out, "-g", abs+":"+strconv.Itoa(line))
	case base == "subl" || base == "zed":
		return append(out, abs+":"+strconv.Itoa(line))
	default:
		return append(out, "+"+strconv.Itoa(line), abs)
	}
}

// TerminalCommand returns the argv of the system terminal; it is started
// with its working directory set to the folder.
func TerminalCommand(env Env) ([]string, error) {
	if t := strings.Fields(env.Getenv("TERMINAL")); len(t) > 0 {
		return t, nil
	}
	for _, t := range []string{"x-terminal-emulator", "gnome-terminal", "konsole", "xfce4-terminal", "kitty", "alacritty", "xterm"} {
		if _, err := env.LookPath(t); err == nil {
			return []string{t}, nil
		}
	}
	return nil, errors.New("opener: no terminal found (set $TERMINAL)")
}

// FolderCommand returns the argv that shows a folder in the file manager.
func FolderCommand(abs string) []string { return []string{"xdg-open", abs} }
