package relay

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// sendJournal sends the journal's records from sequence from on to c, then
// follows it live, until quit is closed or a write fails. Replay and live
// are one path: a frame is sent only after it is journaled, so an app that
// attaches at any moment misses nothing and sees nothing twice.
func (s *server) sendJournal(c net.Conn, from uint64, quit <-chan struct{}) {
	bw := bufio.NewWriterSize(c, 256<<10)
	jr := chunkReader{f: s.j.f, mem: s.j.tailAt}
	var off int64
	gen := -1
	for {
		g, size, ch := s.j.at()
		if g != gen {
			gen, off = g, 0 // rotated (only ever after everything was stored)
			jr.reset()
		}
		jr.gen = g
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
		for off < size {
			rec, n, err := jr.read(off, size)
			if err != nil {
				if g2, _, _ := s.j.at(); g2 != g {
					break // a rotation raced the read: start again at 0
				}
				return // cannot happen (records are written whole before size moves): the app dials again
			}
			off += n
			if rec.Seq >= from && writeRecord(bw, rec) != nil {
				return
			}
		}
	}
}

// chunkReader reads journal records through a buffer (one pread per
// readAhead, not two per record), or straight from the journal's in-memory tail
// when what is wanted is still there (live frames: no read back).
type chunkReader struct {
	f    io.ReaderAt
	mem  func(gen int, off, size int64) ([]byte, bool)
	gen  int
	buf  []byte // the current view: own, or a slice of the journal's tail
	mine bool   // buf is the journal's tail: records the relay encoded in memory, not read back
	own  []byte // the buffer file reads go to
	base int64  // file offset of buf[0]
}

func (r *chunkReader) reset() { r.buf, r.base, r.mine = nil, 0, false }

// read returns the record at off (below size); its payload aliases the
// buffer until the next read.
func (r *chunkReader) read(off, size int64) (Record, int64, error) {
	if rec, n, ok := r.parse(off); ok {
		return rec, n, nil
	}
	if r.mem != nil {
		if b, ok := r.mem(r.gen, off, size); ok {
			r.buf, r.base, r.mine = b, off, true
			if rec, n, ok := r.parse(off); ok {
				return rec, n, nil
			}
		}
	}
	rec, n, err := r.fill(off, min(size-off, readAhead))
	if err == nil {
		return rec, n, nil
	}
	// A record longer than the read-ahead: read it whole.
	if ln, _, ok := r.header(off); ok && recHdr+int64(ln) > int64(len(r.buf)) && recHdr+int64(ln) <= size-off {
		return r.fill(off, recHdr+int64(ln))
	}
	return Record{}, 0, err
}

// readAhead is how much of the journal one pread takes.
const readAhead = 4 << 20

// fill reads want bytes at off into the buffer and parses the record there.
func (r *chunkReader) fill(off, want int64) (Record, int64, error) {
	if int64(cap(r.own)) < want {
		r.own = make([]byte, want)
	}
	r.own = r.own[:want]
	n, err := r.f.ReadAt(r.own, off)
	r.buf, r.base, r.mine = r.own[:n], off, false
	if rec, m, ok := r.parse(off); ok {
		return rec, m, nil
	}
	if err == nil {
		err = errTorn
	}
	return Record{}, 0, err
}

func (r *chunkReader) header(off int64) (uint32, []byte, bool) {
	i := off - r.base
	if i < 0 || i+recHdr > int64(len(r.buf)) {
		return 0, nil, false
	}
	h := r.buf[i : i+recHdr]
	return binary.BigEndian.Uint32(h[0:4]), h, true
}

func (r *chunkReader) parse(off int64) (Record, int64, bool) {
	ln, h, ok := r.header(off)
	i := off - r.base
	if !ok || i+recHdr+int64(ln) > int64(len(r.buf)) {
		return Record{}, 0, false
	}
	body := r.buf[i+8 : i+recHdr+int64(ln)]
	// A record read back from the file is checked; one still in memory
	// was encoded (with its checksum) by this relay a moment ago.
	if !r.mine && crc32.Checksum(body, crcTable) != binary.BigEndian.Uint32(h[4:8]) {
		return Record{}, 0, false
	}
	return Record{Kind: body[0], Seq: binary.BigEndian.Uint64(body[1:9]), Payload: body[9:]}, recHdr + int64(ln), true
}

var errShort = errors.New("relay: short write")

// writeRecord writes rec as its protocol message into w.
func writeRecord(w *bufio.Writer, rec Record) error {
	typ := MsgExit
	switch rec.Kind {
	case recFrame:
		typ = MsgFrame
	case recTooLong:
		typ = MsgTooLong
	case recExit:
	default:
		return nil
	}
	var hdr [13]byte
	hdr[0] = typ
	n := 5
	ln := len(rec.Payload)
	if typ != MsgExit {
		binary.BigEndian.PutUint64(hdr[5:13], rec.Seq)
		n, ln = 13, ln+8
	}
	binary.BigEndian.PutUint32(hdr[1:5], uint32(ln))
	if _, err := w.Write(hdr[:n]); err != nil {
		return err
	}
	if m, err := w.Write(rec.Payload); err != nil || m != len(rec.Payload) {
		return errors.Join(err, errShort)
	}
	return nil
}
