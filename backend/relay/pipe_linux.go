package relay

import (
	"os"

	"golang.org/x/sys/unix"
)

// PipeBytes is the size asked for the agent's stdout pipe (Linux: the
// default 64 KiB makes a flooding agent and the relay take turns every
// ~300 frames; the kernel caps it at /proc/sys/fs/pipe-max-size).
const PipeBytes = 1 << 20

// growPipe enlarges the pipe of f, best effort.
func growPipe(f *os.File) {
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, PipeBytes)
}
