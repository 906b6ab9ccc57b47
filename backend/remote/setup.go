package remote

// A remote project's worktree setup (docs/remote.md): the project's copy
// globs and setup command run on its host, where the worktree is. Fixed
// `sh` programs take every user value as a positional argument; the
// command runs without a shell of ours (its argv is quoted word by word
// for the remote user's shell, as every remote command).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/jean-claude/jean-claude/backend/store"
	"github.com/jean-claude/jean-claude/backend/wtsetup"
)

// HostSetup runs a worktree's setup on the host (wtsetup.Place).
type HostSetup struct{ C *Client }

var _ wtsetup.Place = HostSetup{}

// SetupFor implements workspace.RemoteSetup: ok false for a local project;
// a project whose host cannot be resolved gets a place that fails saying
// why (never this machine).
func (p *ProjectGits) SetupFor(ctx context.Context, projectID string) (wtsetup.Place, bool) {
	ph, ok, err := store.GetProjectHost(ctx, p.DB.R, projectID)
	if err != nil {
		return failPlace{err}, true
	}
	if !ok {
		return nil, false
	}
	c, err := p.Pool.Client(ph.Host)
	if err != nil {
		return failPlace{err}, true
	}
	return HostSetup{C: c}, true
}

type failPlace struct{ err error }

func (f failPlace) CopyFiles(context.Context, string, string, []string) (wtsetup.CopyResult, error) {
	return wtsetup.CopyResult{Copied: []string{}}, f.err
}

func (f failPlace) Run(context.Context, wtsetup.Command, string, []string, io.Writer) wtsetup.Result {
	return wtsetup.Result{Code: -1, Error: f.err.Error()}
}

// setupListScript prints "TYPE PATH\0" (f regular file, l symbolic link, o
// anything else) for every non-folder under each base ("./dir", given with
// the depth its glob can reach, "" for any) of the folder $1, never
// descending into ./.git, the folder $2 (the worktree, when inside; ""
// none) or a linked folder.
const setupListScript = `cd -- "$1" || exit 3; skip=$2; shift 2
while [ $# -ge 2 ]; do
  b=$1; d=$2; shift 2
  [ -e "$b" ] || [ -L "$b" ] || continue
  depth=
  [ -n "$d" ] && depth="-maxdepth $d"
  find "$b" $depth \( -path ./.git -o -path "./$skip" \) -prune -o ! -type d -exec sh -c '
    for f; do
      if [ -L "$f" ]; then t=l; elif [ -f "$f" ]; then t=f; else t=o; fi
      printf "%s %s\000" "$t" "$f"
    done' sh {} +
done`

// setupCopyScript copies each relative path of $1 into $2 (folders made,
// permission bits kept), never over an existing file, never through a
// symbolic link of the worktree out of it: "ok", "exists" or "err: why"
// per path, NUL-terminated.
const setupCopyScript = `src=$1; dst=$2; shift 2
root=$(cd -P -- "$dst" && pwd -P) || exit 3
for p; do
  t=$dst/$p
  if [ -e "$t" ] || [ -L "$t" ]; then printf 'exists\000'; continue; fi
  d=$(dirname -- "$t")
  if ! err=$(mkdir -p -- "$d" 2>&1); then printf 'err: %s\000' "$err"; continue; fi
  rd=$(cd -P -- "$d" && pwd -P)
  case "$rd/" in "$root"/*) ;; *) printf 'err: %s\000' "a folder of the path is a link out of the worktree"; continue ;; esac
  if err=$(cp -p -- "$src/$p" "$t" 2>&1); then printf 'ok\000'; else printf 'err: %s\000' "$err"; fi
done`

// CopyFiles implements wtsetup.Place as wtsetup.CopyFiles does, on the
// host: only regular files, no symbolic link followed, nothing from .git
// or the worktree, no existing file overwritten.
func (h HostSetup) CopyFiles(ctx context.Context, src, dst string, globs []string) (wtsetup.CopyResult, error) {
	res := wtsetup.CopyResult{Copied: []string{}}
	if len(globs) == 0 {
		return res, nil
	}
	skip := ""
	if rel, ok := strings.CutPrefix(path.Clean(dst), path.Clean(src)+"/"); ok {
		skip = rel
	}
	args := []string{"sh", "-c", setupListScript, "jc", src, skip}
	for _, g := range globs {
		base, depth := listRoot(g)
		args = append(args, base, depth)
	}
	out, err := h.C.Output(ctx, args...)
	if err != nil {
		return res, fmt.Errorf("list the project folder on the host: %w", err)
	}
	var todo []string
	seen := map[string]bool{}
	for _, e := range splitNUL(out) {
		typ, p, _ := strings.Cut(e, " ")
		p = strings.TrimPrefix(p, "./")
		if seen[p] || !matchesAny(globs, p) {
			continue
		}
		seen[p] = true
		switch typ {
		case "f":
			todo = append(todo, p)
		case "l":
			res.Skipped = append(res.Skipped, p+" (symbolic link, not followed)")
		default:
			res.Skipped = append(res.Skipped, p+" (not a regular file)")
		}
	}
	if err := h.copyAll(ctx, src, dst, todo, &res); err != nil {
		return res, err
	}
	sort.Strings(res.Copied)
	sort.Strings(res.Skipped)
	return res, nil
}

func (h HostSetup) copyAll(ctx context.Context, src, dst string, todo []string, res *wtsetup.CopyResult) error {
	if len(todo) == 0 {
		return nil
	}
	out, err := h.C.Output(ctx, append([]string{"sh", "-c", setupCopyScript, "jc", src, dst}, todo...)...)
	if err != nil {
		return fmt.Errorf("copy on the host: %w", err)
	}
	st := splitNUL(out)
	if len(st) != len(todo) {
		return fmt.Errorf("copy on the host: %d answers for %d files", len(st), len(todo))
	}
	for i, p := range todo {
		switch s := st[i]; {
		case s == "ok":
			res.Copied = append(res.Copied, p)
		case s == "exists":
			res.Skipped = append(res.Skipped, p+" (exists in the worktree)")
		default:
			return fmt.Errorf("copy %s: %s", p, strings.TrimPrefix(s, "err: "))
		}
	}
	return nil
}

// listRoot is where the host lists for glob g: the folder part before its
// first pattern character, as "./dir" ("." when there is none), and how
// deep below it g can reach ("" when it has "**": any depth), so that
// ".env*" reads the top folder only, as a local glob walk does.
func listRoot(g string) (base, depth string) {
	segs := strings.Split(g, "/")
	n := 0
	for _, s := range segs[:len(segs)-1] {
		if strings.ContainsAny(s, `*?[{\`) {
			break
		}
		n++
	}
	base = "."
	if n > 0 {
		base = "./" + strings.Join(segs[:n], "/")
	}
	if slices.Contains(segs[n:], "**") || strings.Contains(strings.Join(segs[n:], "/"), "**") {
		return base, ""
	}
	return base, strconv.Itoa(len(segs) - n)
}

func matchesAny(globs []string, p string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	return false
}

func splitNUL(b []byte) []string {
	var out []string
	for _, e := range bytes.Split(b, []byte{0}) {
		if len(e) > 0 {
			out = append(out, string(e))
		}
	}
	return out
}

// setupRunScript runs the command "$@" (after cd $1 and exporting the $2
// K=V words that follow) in its own session, stdin from /dev/null,
// stderr with stdout; when the connection's stdin closes (the app
// stopped the setup, or the connection died) the whole group is killed,
// and so is whatever it left when it ends. Its status is the command's.
// A stop that comes before the command's process made its group (setsid
// not yet run) kills that process itself: it has started nothing yet, or
// what it started is in its group, which the kill after the wait ends.
const setupRunScript = `cd -- "$1" || exit 126; n=$2; shift 2
while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n-1)); done
exec 3<&0
setsid "$@" </dev/null 3<&- 2>&1 &
pid=$!
{ while read -r _ <&3; do :; done; kill -KILL -"$pid" || kill -KILL "$pid"; } >/dev/null 2>&1 &
w=$!
wait "$pid"; code=$?
kill -KILL -"$pid" 2>/dev/null
kill "$w" 2>/dev/null
exit "$code"`

// Run implements wtsetup.Place: c runs on the host in dir (no shell of
// ours; c's own /bin/sh -c when it uses shell syntax), env added to the
// host user's environment, the output streamed to out. Cancelling ctx
// ends the ssh session, which kills the command's group on the host.
func (h HostSetup) Run(ctx context.Context, c wtsetup.Command, dir string, env []string, out io.Writer) wtsetup.Result {
	if len(c.Argv) == 0 {
		return wtsetup.Result{Code: -1, Error: "nothing to run"}
	}
	argv := append([]string{"sh", "-c", setupRunScript, "jc", dir, strconv.Itoa(len(env))}, env...)
	cmd := h.C.Cmd(ctx, append(argv, c.Argv...)...)
	stdin, keep, err := os.Pipe() // open while the setup runs: closing it stops it on the host
	if err != nil {
		return wtsetup.Result{Code: -1, Error: err.Error()}
	}
	defer keep.Close()
	var errb bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, out, &errb
	err = cmd.Start()
	stdin.Close()
	if err != nil {
		return wtsetup.Result{Code: -1, Error: fmt.Sprintf("start ssh: %v", err)}
	}
	err = cmd.Wait()
	var ee interface{ ExitCode() int }
	switch {
	case ctx.Err() != nil:
		cause := context.Cause(ctx)
		return wtsetup.Result{Code: -1, Error: "stopped: " + cause.Error(), Stopped: !errors.Is(cause, context.DeadlineExceeded)}
	case errors.As(err, &ee) && ee.ExitCode() == 255:
		return wtsetup.Result{Code: -1, Error: fmt.Sprintf("%v: %s: %s", ErrUnreachable, h.C.Host(), lastLine(errb.Bytes()))}
	case errors.As(err, &ee):
		if s := strings.TrimSpace(errb.String()); s != "" {
			_, _ = io.WriteString(out, s+"\n") // e.g. the folder is missing: say why
		}
		return wtsetup.Result{Code: ee.ExitCode()}
	case err != nil:
		return wtsetup.Result{Code: -1, Error: err.Error()}
	}
	return wtsetup.Result{}
}
