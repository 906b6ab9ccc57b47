// Package wtsetup makes a new task worktree ready to work in: it copies
// the project's untracked files a worktree lacks (".env*", local config)
// by a glob list, and runs the project's setup command in it, streaming
// the output as raw frames of the "worktree-setup" format, which Format's
// normalizer turns into one tool-like message (docs/task-tools.md).
package wtsetup

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// CopyResult says what CopyFiles did, relative paths with "/".
type CopyResult struct {
	Copied []string `json:"copied"`
	// Skipped are matches not copied, each with why ("exists",
	// "symlink", ...).
	Skipped []string `json:"skipped,omitempty"`
}

// ParseGlobs splits a newline-separated glob list, dropping blank lines
// and "#" comments, and checks each pattern: relative, no "..", valid
// doublestar syntax ("**" matches any number of folders).
func ParseGlobs(list string) ([]string, error) {
	var out []string
	for _, line := range strings.Split(list, "\n") {
		p := strings.TrimSpace(line)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		p = filepath.ToSlash(p)
		if path.IsAbs(p) || filepath.IsAbs(p) {
			return nil, fmt.Errorf("glob %q: must be relative to the project folder", p)
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == ".." {
				return nil, fmt.Errorf("glob %q: must not leave the project folder (..)", p)
			}
		}
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("glob %q: invalid pattern", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// CopyFiles copies the regular files of src matching globs into the same
// relative place under dst. It never follows a symbolic link (a matched
// link is skipped, a link in a path is refused by os.Root), never looks
// into .git or into dst when dst lies inside src, and never overwrites a
// file dst already has (a tracked file, or a copy made by an earlier try).
// Ignored files are copied too: that is the point (.env is usually
// ignored).
func CopyFiles(src, dst string, globs []string) (CopyResult, error) {
	res := CopyResult{Copied: []string{}}
	if len(globs) == 0 {
		return res, nil
	}
	sroot, err := os.OpenRoot(src)
	if err != nil {
		return res, fmt.Errorf("open the project folder: %w", err)
	}
	defer sroot.Close()
	droot, err := os.OpenRoot(dst)
	if err != nil {
		return res, fmt.Errorf("open the worktree: %w", err)
	}
	defer droot.Close()
	skipDir := insideDir(src, dst)
	seen := map[string]bool{}
	for _, g := range globs {
		err := doublestar.GlobWalk(sroot.FS(), g, func(p string, d fs.DirEntry) error {
			if seen[p] {
				return nil
			}
			seen[p] = true
			if d.IsDir() {
				return nil
			}
			if why := skipReason(p, d, skipDir); why != "" {
				res.Skipped = append(res.Skipped, p+" ("+why+")")
				return nil
			}
			switch err := copyOne(sroot, droot, p); {
			case errors.Is(err, fs.ErrExist):
				res.Skipped = append(res.Skipped, p+" (exists in the worktree)")
			case err != nil:
				return fmt.Errorf("copy %s: %w", p, err)
			default:
				res.Copied = append(res.Copied, p)
			}
			return nil
		}, doublestar.WithNoFollow())
		if err != nil {
			return res, fmt.Errorf("glob %q: %w", g, err)
		}
	}
	sort.Strings(res.Copied)
	sort.Strings(res.Skipped)
	return res, nil
}

// insideDir returns dst relative to src ("/"-separated) when dst lies
// inside src, else "".
func insideDir(src, dst string) string {
	rel, err := filepath.Rel(src, dst)
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}

func skipReason(p string, d fs.DirEntry, skipDir string) string {
	first := strings.SplitN(p, "/", 2)[0]
	switch {
	case first == ".git":
		return "inside .git"
	case skipDir != "" && (p == skipDir || strings.HasPrefix(p, skipDir+"/")):
		return "inside the worktree folder"
	case d.Type()&fs.ModeSymlink != 0:
		return "symbolic link, not followed"
	case !d.Type().IsRegular():
		return "not a regular file"
	}
	return ""
}

// copyOne copies file p from sroot to droot, creating its folders, with
// the source's permission bits; fs.ErrExist when droot has p already.
func copyOne(sroot, droot *os.Root, p string) error {
	in, err := sroot.Open(filepath.FromSlash(p))
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("not a regular file")
	}
	if dir := path.Dir(p); dir != "." {
		if err := droot.MkdirAll(filepath.FromSlash(dir), 0o755); err != nil {
			return err
		}
	}
	out, err := droot.OpenFile(filepath.FromSlash(p), os.O_WRONLY|os.O_CREATE|os.O_EXCL, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
