package relay

import (
	"os"

	"golang.org/x/sys/unix"
)

// growPipe enlarges the pipe of f to PipeBytes, best effort (the kernel
// caps it at /proc/sys/fs/pipe-max-size).
func growPipe(f *os.File) {
	_, _ = unix.FcntlInt(f.Fd(), unix.F_SETPIPE_SZ, PipeBytes)
}
