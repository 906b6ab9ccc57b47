package relay

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// maxRun bounds one Data message.
const maxRun = 4 << 20

// sendJournal sends the journal to c from its start (a Base message: the
// first line's sequence and stream offset), then follows it live: each
// stretch of new bytes as one Data message sent from the file
// (sendfile(2): the bytes never pass through the relay), then the
// agent's end once every byte before it is sent. It ends when quit is
// closed or a write fails. Replay and live are one path: bytes are sent
// only once they are in the file, so an app that attaches at any moment
// misses nothing; it numbers the lines itself and drops those it has.
func (s *server) sendJournal(c net.Conn, local bool, quit <-chan struct{}) {
	sink := &liveSink{c: c, local: local, failed: make(chan struct{})}
	off, known := int64(-1), int64(-1) // where the app stands; the base it was told
	exitSent := false
	for {
		v := s.j.view()
		var err error
		switch {
		case v.base != known: // the start, or the file rotated
			err = writeBase(c, v.first, v.base)
			off, known = max(off, v.base), v.base
		case off < v.size && local:
			err = writeAvail(c, v.size)
			off = v.size
		case off < v.size:
			var n int64
			n, err = s.sendData(c, off, min(v.size-off, maxRun))
			off += n
		case v.exit != nil && !exitSent:
			err = WriteJSON(c, MsgExit, v.exit)
			exitSent = true
		case v.exit == nil && s.j.goLive(sink, off, known):
			select { // the writer sends from here on
			case <-sink.failed:
				return
			case <-quit:
				s.j.dropLive(sink)
				return
			case <-s.j.exitSet: // the writer is done: the end goes from here
				off, known = s.j.dropLive(sink)
			}
		default:
			select {
			case <-v.notify:
			case <-quit:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// liveSink is an app's connection whose sender caught up with the
// journal: the writer sends each stretch it moves into the file itself,
// right after the splice, instead of waking the sender for it. off (under
// journal.mu) is where the app stands: a stretch goes to the sink only if
// it starts there. An app that does not read holds the writer, and so the
// agent, as a pipe would.
type liveSink struct {
	c      net.Conn
	local  bool          // the app reads the file: it is told where the bytes end (Avail)
	off    int64         // under journal.mu
	base   int64         // the base the app was told (under journal.mu)
	failed chan struct{} // closed when a send failed (the connection is done)
	once   sync.Once
}

// liveSend is one stretch for the sink: the n bytes at file offset at,
// which end at stream offset end; first and base when the file rotated
// since the app was told its base.
type liveSend struct {
	at, n, end int64
	first      uint64
	base       int64
	rotated    bool
}

// send sends a stretch (a nil sink sends nothing): a Base first if the
// file rotated, then one Data message, or to a local app an Avail.
func (k *liveSink) send(j *journal, ls liveSend) {
	if k == nil || isClosed(k.failed) {
		return
	}
	var err error
	if ls.rotated {
		err = writeBase(k.c, ls.first, ls.base)
	}
	switch {
	case err != nil:
	case k.local:
		err = writeAvail(k.c, ls.end)
	default:
		err = j.writeData(k.c, ls.at, ls.n)
	}
	if err != nil {
		k.once.Do(func() { close(k.failed) })
	}
}

// goLive hands the app's connection to the writer if the sender stands at
// the journal's end, the app knows the journal's base and the agent has
// not ended.
func (j *journal) goLive(k *liveSink, off, base int64) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if off != j.size || base != j.base || j.exit != nil || isClosed(k.failed) {
		return false
	}
	k.off, k.base, j.live = off, base, k
	return true
}

// dropLive takes the connection back from the writer and returns where
// the app stands and the base it was told.
func (j *journal) dropLive(k *liveSink) (int64, int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.live == k {
		j.live = nil
	}
	return k.off, k.base
}

func writeAvail(c net.Conn, end int64) error {
	return WriteMsg(c, MsgAvail, 0, false, binary.BigEndian.AppendUint64(nil, uint64(end)))
}

func writeBase(c net.Conn, first uint64, base int64) error {
	p := binary.BigEndian.AppendUint64(nil, first)
	p = binary.BigEndian.AppendUint64(p, uint64(base))
	return WriteMsg(c, MsgBase, 0, false, p)
}

// sendData sends the n journal bytes at stream offset off as one Data
// message (0 when the file rotated since: the caller starts again from
// the new base). No rotation truncates the file meanwhile.
func (s *server) sendData(c net.Conn, off, n int64) (int64, error) {
	s.j.rot.RLock()
	defer s.j.rot.RUnlock()
	v := s.j.view()
	if off < v.base {
		return 0, nil
	}
	return n, s.j.writeData(c, rawHdr+off-v.base, n)
}

// writeData sends the file's n bytes at file offset at as one Data message.
func (j *journal) writeData(c net.Conn, at, n int64) error {
	var hdr [5]byte
	hdr[0] = MsgData
	binary.BigEndian.PutUint32(hdr[1:], uint32(n))
	if _, err := c.Write(hdr[:]); err != nil {
		return err
	}
	return j.sendFile(c, at, n)
}

// sendFile writes the file's n bytes at file offset at to c: with
// sendfile(2) to a socket, else (a net.Pipe in tests) through a buffer.
func (j *journal) sendFile(c net.Conn, at, n int64) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		_, err := io.Copy(c, io.NewSectionReader(j.f, at, n))
		return err
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	werr := rc.Write(func(fd uintptr) bool {
		for n > 0 {
			k, err := unix.Sendfile(int(fd), j.fd, &at, int(min(n, 1<<30)))
			n -= int64(max(k, 0))
			switch {
			case errors.Is(err, unix.EAGAIN):
				return false
			case errors.Is(err, unix.EINTR):
			case err != nil:
				serr = err
				return true
			case k == 0:
				serr = io.ErrUnexpectedEOF
				return true
			}
		}
		return true
	})
	if werr != nil {
		return werr
	}
	return serr
}
