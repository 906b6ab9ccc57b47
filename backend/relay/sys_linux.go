//go:build linux

package relay

import "golang.org/x/sys/unix"

// splice moves up to n bytes of the pipe fd into the file at *off without
// copying them through the relay (splice(2)).
func splice(fd, file int, off *int64, n int) (int64, error) {
	return unix.Splice(fd, nil, file, off, n, unix.SPLICE_F_NONBLOCK|unix.SPLICE_F_MOVE)
}

// growPipe makes the agent's stdout pipe spliceMax bytes (a bigger pipe
// lets the agent write on while the relay is not scheduled). The kernel
// counts it against the user's pipe pages (pipe-user-pages-soft, 64 MiB by
// default: 64 agents at once); a refusal keeps the default 64 KiB.
func growPipe(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, spliceMax) }

// stopper wakes the read loop's poll to end it: an eventfd here.
type stopper struct{ r, w int }

func newStopper() (stopper, error) {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	return stopper{r: fd, w: fd}, err
}

func (s stopper) signal() { _, _ = unix.Write(s.w, []byte{1, 0, 0, 0, 0, 0, 0, 0}) }

func (s stopper) close() { unix.Close(s.r) }
