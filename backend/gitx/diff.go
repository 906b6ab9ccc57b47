package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Change statuses of a FileChange.
const (
	Added       = "added"
	Modified    = "modified"
	Deleted     = "deleted"
	Renamed     = "renamed"
	Copied      = "copied"
	TypeChanged = "type-changed"
	Unmerged    = "unmerged"
)

// FileChange is one changed path between the base commit and the worktree.
type FileChange struct {
	Path    string `json:"path"`
	OldPath string `json:"oldPath,omitempty"` // renames and copies
	Status  string `json:"status"`
	// Similarity in percent for renames and copies.
	Similarity int    `json:"similarity,omitempty"`
	OldMode    string `json:"oldMode,omitempty"` // e.g. 100644; "" when added
	NewMode    string `json:"newMode,omitempty"` // "" when deleted
	Binary     bool   `json:"binary"`
	Added      int    `json:"added"`
	Removed    int    `json:"removed"`
	// Patch is the unified diff body: the hunks, from the first "@@" line
	// ("" for binary files, pure renames and mode changes).
	Patch string `json:"patch"`
	// PatchOmitted: the patch was left out (too large, or the diff's byte
	// budget was spent); FileDiff with this path returns it.
	PatchOmitted bool `json:"patchOmitted,omitempty"`
}

// ModeChanged reports a file mode change (e.g. the executable bit).
func (f FileChange) ModeChanged() bool {
	return f.OldMode != "" && f.NewMode != "" && f.OldMode != f.NewMode
}

// Diff is everything that changed from Base to the worktree's files:
// commits on the branch, staged, unstaged and untracked (not ignored)
// changes together.
type Diff struct {
	Base    string       `json:"base"`
	Head    string       `json:"head"`
	Files   []FileChange `json:"files"`
	Added   int          `json:"added"`
	Removed int          `json:"removed"`
}

// DiffOptions tune Diff.
type DiffOptions struct {
	// Paths limits the diff to these paths (literal, relative to the
	// worktree's top). Give both sides of a rename to keep it a rename.
	Paths []string
	// MaxFilePatch is the largest patch kept per file (default 512 KiB);
	// MaxTotalPatch the budget for all patches (default 4 MiB). Files over
	// either are listed with PatchOmitted.
	MaxFilePatch, MaxTotalPatch int
	// NoPatch lists files and counts only.
	NoPatch bool
	// To, when set, is a commit id: the diff is base..To between two
	// commits, and the worktree's files (and index) play no part.
	To string
}

// Diff compares base (a commit id) with the worktree at dir, untracked
// files included, rename detection on. It never changes the worktree's
// index: untracked files are added as intent-to-add entries to a
// throw-away copy of the index, so no object is written either. Cheap
// enough to poll every couple of seconds on ordinary repositories.
func (g *Git) Diff(ctx context.Context, dir, base string, opt DiffOptions) (Diff, error) {
	if opt.MaxFilePatch <= 0 {
		opt.MaxFilePatch = 512 << 10
	}
	if opt.MaxTotalPatch <= 0 {
		opt.MaxTotalPatch = 4 << 20
	}
	base, err := g.ResolveCommit(ctx, dir, base)
	if err != nil {
		return Diff{}, err
	}
	var head string
	if opt.To != "" {
		if head, err = g.ResolveCommit(ctx, dir, opt.To); err != nil {
			return Diff{}, err
		}
		opt.To = head
	} else if head, err = g.out(ctx, dir, "rev-parse", "--verify", "HEAD"); err != nil {
		return Diff{}, fmt.Errorf("gitx: diff: %w", err)
	}

	// A file that vanishes between the scratch index and the diff makes
	// git fail ("stat ...: No such file"): take the diff again.
	var out []byte
	for attempt := 1; ; attempt++ {
		out, err = g.rawDiff(ctx, dir, base, opt)
		if err == nil || attempt == 4 || !vanished(err) {
			break
		}
		select { // let a burst of writes settle before the next try
		case <-ctx.Done():
			return Diff{}, fmt.Errorf("gitx: diff: %w", ctx.Err())
		case <-time.After(time.Duration(attempt) * 25 * time.Millisecond):
		}
	}
	if err != nil {
		return Diff{}, err
	}
	files, patch, err := parseRawNumstat(out)
	if err != nil {
		return Diff{}, err
	}
	if !opt.NoPatch {
		attachPatches(files, patch, opt.MaxFilePatch, opt.MaxTotalPatch)
	}
	d := Diff{Base: base, Head: head, Files: files}
	for _, f := range files {
		d.Added += f.Added
		d.Removed += f.Removed
	}
	return d, nil
}

// vanished reports a git failure caused by a file deleted while git ran.
func vanished(err error) bool {
	var ge *Error
	// git says "stat …: No such file or directory" when the file is gone
	// before it looks, "unable to read files to diff" when it goes while
	// git reads it.
	return errors.As(err, &ge) && (strings.Contains(ge.Stderr, "No such file or directory") ||
		strings.Contains(ge.Stderr, "unable to read files to diff"))
}

// rawDiff runs the diff of base against the worktree through a scratch
// index and returns git's raw+numstat(+patch) output.
func (g *Git) rawDiff(ctx context.Context, dir, base string, opt DiffOptions) ([]byte, error) {
	args := []string{"diff", "--no-ext-diff", "--no-textconv", "--find-renames", "--raw", "--numstat", "-z", "--abbrev=40"}
	if !opt.NoPatch {
		args = append(args, "--patch", "--unified=3")
	}
	args = append(args, base)
	if opt.To != "" {
		args = append(args, opt.To)
	}
	args = append(append(args, "--"), opt.Paths...)
	if opt.To != "" {
		out, _, err := g.run(ctx, call{dir: dir, args: args})
		if err != nil {
			return nil, fmt.Errorf("gitx: diff: %w", err)
		}
		return out, nil
	}

	idx, cleanup, err := g.scratchIndex(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	env := []string{"GIT_INDEX_FILE=" + idx, "GIT_OPTIONAL_LOCKS=0"}

	// Untracked (not ignored) files become intent-to-add entries in the
	// scratch index: `add -N --all` records no content for tracked files
	// and writes no object. It walks the tree itself, so a file the agent
	// deletes meanwhile is simply not there (no pathspec race).
	addArgs := []string{"add", "--intent-to-add", "--all"}
	if len(opt.Paths) > 0 {
		addArgs = append(append(addArgs, "--"), opt.Paths...)
	}
	if _, _, err := g.run(ctx, call{dir: dir, env: env, args: addArgs}); err != nil && len(opt.Paths) == 0 {
		// With paths, a path in neither the worktree nor the index is
		// refused; the diff below then reports no change for it.
		return nil, fmt.Errorf("gitx: add untracked files to scratch index: %w", err)
	}

	out, _, err := g.run(ctx, call{dir: dir, env: env, args: args})
	if err != nil {
		return nil, fmt.Errorf("gitx: diff: %w", err)
	}
	return out, nil
}

// FileDiff is Diff limited to one path (and its old name for a rename),
// with no patch budget but the per-file cap raised to 8 MiB.
func (g *Git) FileDiff(ctx context.Context, dir, base, path string, oldPath string) (FileChange, error) {
	return g.FileDiffTo(ctx, dir, base, "", path, oldPath)
}

// FileDiffTo is FileDiff between two commits when to is set.
func (g *Git) FileDiffTo(ctx context.Context, dir, base, to, path, oldPath string) (FileChange, error) {
	if path == "" {
		return FileChange{}, fmt.Errorf("%w: empty path", ErrInvalidPath)
	}
	paths := []string{path}
	if oldPath != "" && oldPath != path {
		paths = append(paths, oldPath)
	}
	d, err := g.Diff(ctx, dir, base, DiffOptions{Paths: paths, To: to, MaxFilePatch: 8 << 20, MaxTotalPatch: 16 << 20})
	if err != nil {
		return FileChange{}, err
	}
	for _, f := range d.Files {
		if f.Path == path || f.OldPath == path {
			return f, nil
		}
	}
	return FileChange{}, fmt.Errorf("gitx: %s: no change", path)
}

// scratchIndex copies the worktree's index into a private temporary
// folder; cleanup removes it.
func (g *Git) scratchIndex(ctx context.Context, dir string) (string, func(), error) {
	real, err := g.out(ctx, dir, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return "", nil, fmt.Errorf("gitx: locate index: %w", err)
	}
	tmpDir, err := g.r.TempDir(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("gitx: scratch index: %w", err)
	}
	cleanup := func() { g.r.RemoveAll(context.WithoutCancel(ctx), tmpDir) }
	idx := filepath.Join(tmpDir, "index")
	err = g.r.CopyFile(ctx, real, idx)
	if errors.Is(err, fs.ErrNotExist) {
		return idx, cleanup, nil // no index yet: git starts from an empty one
	}
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("gitx: scratch index: %w", err)
	}
	return idx, cleanup, nil
}

func copyTo(path string, r io.Reader) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseRawNumstat reads `git diff --raw --numstat -z [--patch]` output:
// raw records, then numstat records in the same order, then (with a
// patch) one NUL and the patch text.
func parseRawNumstat(b []byte) ([]FileChange, []byte, error) {
	z := &zFields{b: b}
	var files []FileChange
	for len(z.b) > 0 && z.b[0] == ':' {
		fc, err := z.rawRecord()
		if err != nil {
			return nil, nil, err
		}
		files = append(files, fc)
	}
	if err := z.numstat(files); err != nil {
		return nil, nil, err
	}
	if len(z.b) > 0 && z.b[0] == 0 {
		z.b = z.b[1:]
	}
	return files, z.b, nil
}

// zFields reads NUL-terminated fields.
type zFields struct{ b []byte }

// next is the next field, false when no NUL ends one.
func (z *zFields) next() (string, bool) {
	i := bytes.IndexByte(z.b, 0)
	if i < 0 {
		return "", false
	}
	s := string(z.b[:i])
	z.b = z.b[i+1:]
	return s, true
}

func badDiff(what string) error { return fmt.Errorf("gitx: unexpected diff output (%s)", what) }

// rawRecord reads one raw record: ":oldmode newmode oldsha newsha status",
// its path, and for a rename or copy the new path.
func (z *zFields) rawRecord() (FileChange, error) {
	meta, ok := z.next()
	if !ok {
		return FileChange{}, badDiff("raw record")
	}
	f := strings.Fields(meta[1:])
	if len(f) != 5 {
		return FileChange{}, badDiff("raw fields")
	}
	fc := FileChange{OldMode: f[0], NewMode: f[1]}
	if fc.OldMode == "000000" {
		fc.OldMode = ""
	}
	if fc.NewMode == "000000" {
		fc.NewMode = ""
	}
	st := f[4]
	p1, ok := z.next()
	if !ok {
		return FileChange{}, badDiff("raw path")
	}
	switch st[0] {
	case 'A':
		fc.Status = Added
	case 'D':
		fc.Status = Deleted
	case 'T':
		fc.Status = TypeChanged
	case 'U':
		fc.Status = Unmerged
	case 'R', 'C':
		fc.Status = Renamed
		if st[0] == 'C' {
			fc.Status = Copied
		}
		fc.Similarity, _ = strconv.Atoi(st[1:])
		p2, ok := z.next()
		if !ok {
			return FileChange{}, badDiff("rename path")
		}
		fc.OldPath, p1 = p1, p2
	default: // 'M' and anything newer
		fc.Status = Modified
	}
	fc.Path = p1
	return fc, nil
}

// numstat reads the numstat records into files, in order: "added\tremoved\t
// path", or "added\tremoved\t" then the old and new paths of a rename; "-"
// counts for a binary file.
func (z *zFields) numstat(files []FileChange) error {
	for i := 0; i < len(files) && len(z.b) > 0 && z.b[0] != 0; i++ {
		rec, ok := z.next()
		if !ok {
			return badDiff("numstat record")
		}
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			return badDiff("numstat fields")
		}
		if parts[2] == "" { // rename: two more paths
			if _, ok := z.next(); !ok {
				return badDiff("numstat rename")
			}
			if _, ok := z.next(); !ok {
				return badDiff("numstat rename")
			}
		}
		if parts[0] == "-" {
			files[i].Binary = true
			continue
		}
		files[i].Added, _ = strconv.Atoi(parts[0])
		files[i].Removed, _ = strconv.Atoi(parts[1])
	}
	return nil
}

// attachPatches splits the patch text into per-file sections (they come in
// the same order as the raw records; unmerged paths have no section) and
// keeps each section's hunks.
func attachPatches(files []FileChange, patch []byte, maxFile, maxTotal int) {
	sections := splitPatch(patch)
	total := 0
	j := 0
	for i := range files {
		if files[i].Status == Unmerged {
			continue
		}
		if j >= len(sections) {
			files[i].PatchOmitted = true
			continue
		}
		sec := sections[j]
		j++
		body := hunks(sec)
		if bytes.Contains(headerOf(sec), []byte("\nBinary files ")) || bytes.HasPrefix(headerOf(sec), []byte("Binary files ")) {
			files[i].Binary = true
		}
		if len(body) > maxFile || total+len(body) > maxTotal {
			files[i].PatchOmitted = true
			continue
		}
		total += len(body)
		files[i].Patch = string(body)
	}
}

// splitPatch cuts patch text at each "diff --git " line, dropping the
// "* Unmerged path" notes.
func splitPatch(p []byte) [][]byte {
	var out [][]byte
	start := -1
	for pos := 0; pos < len(p); {
		end := bytes.IndexByte(p[pos:], '\n')
		lineEnd := len(p)
		if end >= 0 {
			lineEnd = pos + end + 1
		}
		line := p[pos:lineEnd]
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")):
			if start >= 0 {
				out = append(out, p[start:pos])
			}
			start = pos
		case bytes.HasPrefix(line, []byte("* Unmerged path ")):
			if start >= 0 {
				out = append(out, p[start:pos])
			}
			start = -1
		}
		pos = lineEnd
	}
	if start >= 0 {
		out = append(out, p[start:])
	}
	return out
}

// headerOf returns a section's extended header (before the first hunk).
func headerOf(sec []byte) []byte {
	if i := bytes.Index(sec, []byte("\n@@ ")); i >= 0 {
		return sec[:i+1]
	}
	return sec
}

// hunks returns a section from its first "@@" line.
func hunks(sec []byte) []byte {
	if bytes.HasPrefix(sec, []byte("@@ ")) {
		return sec
	}
	if i := bytes.Index(sec, []byte("\n@@ ")); i >= 0 {
		return sec[i+1:]
	}
	return nil
}
