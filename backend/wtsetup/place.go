package wtsetup

import (
	"context"
	"io"
	"os"
)

// Place is where a worktree's setup runs: this machine (Local) or the
// host of a remote project (package remote's HostSetup), so that the files
// are copied and the command runs where the worktree is.
type Place interface {
	// CopyFiles copies src's files matching globs into dst (see
	// CopyFiles).
	CopyFiles(ctx context.Context, src, dst string, globs []string) (CopyResult, error)
	// Run runs c in dir with env added to the place's own environment,
	// its combined output written to out as it comes (see Run).
	Run(ctx context.Context, c Command, dir string, env []string, out io.Writer) Result
}

// Local is this machine.
type Local struct{}

// CopyFiles implements Place.
func (Local) CopyFiles(_ context.Context, src, dst string, globs []string) (CopyResult, error) {
	return CopyFiles(src, dst, globs)
}

// Run implements Place: env is added to this process's environment.
func (Local) Run(ctx context.Context, c Command, dir string, env []string, out io.Writer) Result {
	return Run(ctx, c, dir, append(os.Environ(), env...), out)
}
