package relay

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// sendJournal sends the journal's records from sequence from on to c, then
// follows it live, until quit is closed or a write fails. Replay and live
// are one path: a frame is sent only after it is journaled, so an app that
// attaches at any moment misses nothing and sees nothing twice.
func (s *server) sendJournal(c net.Conn, from uint64, quit <-chan struct{}) {
	bw := bufio.NewWriterSize(c, 64<<10)
	var off int64
	gen := -1
	for {
		g, size, ch := s.j.at()
		if g != gen {
			gen, off = g, 0 // rotated (only ever after everything was stored)
		}
		if off >= size {
			if bw.Flush() != nil {
				return
			}
			select {
			case <-ch:
				continue
			case <-quit:
				return
			}
		}
		rec, n, err := readRecord(s.j.f, off)
		if err != nil {
			if errors.Is(err, errTorn) || errors.Is(err, io.EOF) {
				if g2, _, _ := s.j.at(); g2 != g {
					continue // a rotation raced the read: start again at 0
				}
				return // cannot happen (records are written whole before size moves): the app dials again

			}
			return
		}
		off += n
		if rec.Seq < from {
			continue
		}
		if writeRecord(bw, rec) != nil {
			return
		}
	}
}

func writeRecord(w io.Writer, rec Record) error {
	switch rec.Kind {
	case recFrame:
		return WriteMsg(w, MsgFrame, rec.Seq, true, rec.Payload)
	case recTooLong:
		return WriteMsg(w, MsgTooLong, rec.Seq, true, rec.Payload)
	case recExit:
		return WriteMsg(w, MsgExit, 0, false, rec.Payload)
	}
	return nil
}
