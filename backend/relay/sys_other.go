//go:build !linux

package relay

import "golang.org/x/sys/unix"

// splice is Linux's: elsewhere the journal reads and writes (journal.move
// falls back on ENOSYS).
func splice(int, int, *int64, int) (int64, error) { return 0, unix.ENOSYS }

// growPipe: the pipe's size cannot be set here.
func growPipe(uintptr) {}

// stopper wakes the read loop's poll to end it: a pipe here (no eventfd).
type stopper struct{ r, w int }

func newStopper() (stopper, error) {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return stopper{}, err
	}
	unix.CloseOnExec(p[0])
	unix.CloseOnExec(p[1])
	return stopper{r: p[0], w: p[1]}, nil
}

func (s stopper) signal() { _, _ = unix.Write(s.w, []byte{1}) }

func (s stopper) close() {
	unix.Close(s.r)
	unix.Close(s.w)
}
