package relay

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// readLoop moves the agent's stdout into the journal as it comes, splicing
// what its pipe holds into the file (journal.fill): the bytes never pass
// through the relay. It waits for the pipe with poll(2) in its own thread,
// not with the runtime's poller, and sends new bytes to a caught-up app
// itself (journal.fill): a stretch of output costs the relay a poll, a
// splice and a sendfile, with no hand-over between goroutines (each of
// which cost a futex wake and an epoll round, more than the bytes did:
// docs/relay.md). It stops reading (the agent blocks on its pipe) while
// the journal is too far ahead of the app (waitRoom), and ends at the end
// of the output, or when told to (stop: reap, after WaitDelay, when the
// agent's children keep the pipe open). A journal that cannot be written
// (a full disk) holds the agent on its full pipe, nothing read is lost,
// and writing resumes by itself once it works again (tried every
// retryWrite; the reason goes to the relay's log once).
func (s *server) readLoop(r *os.File, stop int) {
	fd := int(r.Fd()) // only this loop reads it, waiting with poll
	if err := unix.SetNonblock(fd, true); err != nil {
		s.errT.Write([]byte("relay: stdout: " + err.Error() + "\n"))
		return
	}
	failing := false
	for {
		s.waitRoom()
		n, err := s.j.fill(fd)
		if n > 0 {
			s.touch()
			if failing {
				failing = false
				s.errT.Write([]byte("relay: journal writable again\n"))
			}
		}
		switch {
		case errors.Is(err, unix.EAGAIN):
			if !waitReadable(fd, stop) {
				return
			}
		case errors.Is(err, unix.EINTR):
		case errors.Is(err, errJournalWrite):
			if !failing {
				failing = true
				s.errT.Write([]byte(err.Error() + "; the agent is held until it can be written\n"))
			}
			if !waitStop(stop, retryWrite) {
				return
			}
		case err != nil:
			return
		case n == 0:
			return // the end of the agent's output
		}
	}
}

// retryWrite is how often a journal that could not be written is tried again.
var retryWrite = time.Second

// waitStop waits d, or until stop (an eventfd) is signalled: false then.
func waitStop(stop int, d time.Duration) bool {
	fds := []unix.PollFd{{Fd: int32(stop), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(d.Milliseconds()))
	return !(n > 0 && err == nil && fds[0].Revents != 0)
}

// waitReadable waits until fd has bytes (or is closed at the other end);
// false once stop (an eventfd) is signalled.
func waitReadable(fd, stop int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(stop), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			return false
		}
		if fds[1].Revents != 0 {
			return false
		}
		if fds[0].Revents != 0 {
			return true
		}
	}
}
