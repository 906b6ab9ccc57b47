package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/store"
)

// MaxOutput is how much of a check's output is kept (its tail).
const MaxOutput = 64 << 10

// DefaultTimeout bounds one check run.
const DefaultTimeout = 15 * time.Minute

// tail keeps the last max bytes written.
type tail struct {
	mu      sync.Mutex
	buf     []byte
	max     int
	dropped bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
		t.dropped = true
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dropped {
		return "…(earlier output dropped)\n" + string(t.buf)
	}
	return string(t.buf)
}

// RunCheck runs command in dir (argv parsed by SplitArgs, no shell, its
// own process group killed on timeout or cancel) and returns the run: passed
// on exit 0, failed on another exit status, error when it could not run.
func RunCheck(ctx context.Context, dir, command string, timeout time.Duration) store.CheckRun {
	run := store.CheckRun{Command: command, StartedAt: store.Now()}
	defer func() { run.EndedAt = store.Now() }()
	argv, err := SplitArgs(command)
	if err != nil {
		run.Status, run.Output = store.CheckError, err.Error()
		return run
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	out := &tail{max: MaxOutput}
	cmd.Stdout, cmd.Stderr = out, out
	ownGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	run.Output = out.String()
	var exit *exec.ExitError
	switch {
	case err == nil:
		run.Status = store.CheckPassed
	case ctx.Err() != nil:
		run.Status, run.ExitCode = store.CheckFailed, -1
		run.Output += fmt.Sprintf("\n(stopped: %v)", ctx.Err())
	case errors.As(err, &exit):
		run.Status, run.ExitCode = store.CheckFailed, exit.ExitCode()
	default:
		run.Status = store.CheckError
		run.Output = string(bytes.TrimSpace([]byte(run.Output + "\n" + err.Error())))
	}
	return run
}
