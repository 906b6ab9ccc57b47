package relay

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"net"
	"sync"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// sendJournal sends the journal's records from sequence from on to c, then
// follows it live, until quit is closed or a write fails. Replay and live
// are one path: a frame is sent only after it is journaled, so an app that
// attaches at any moment misses nothing and sees nothing twice.
//
// To a client of protocol version 2 (records) the records go as they are
// journaled, in Records messages: a run of them straight from the
// journal's memory (or from the buffer a far-behind sender read the file
// into), with one writev(2) per run and no copy; to an older client, one
// Frame, TooLong or Exit message each.
func (s *server) sendJournal(c net.Conn, from uint64, records bool, quit <-chan struct{}) {
	out := recordSender{c: c}
	if !records {
		out.bw = bufio.NewWriterSize(c, 256<<10)
	}
	jr := chunkReader{f: s.j.f, j: s.j}
	defer jr.release()
	sink := &liveSink{c: c, failed: make(chan struct{})}
	var off int64
	gen := -1
	for {
		g, size, ch := s.j.at()
		if g != gen {
			if out.flushRun() != nil { // before its bytes are let go
				return
			}
			gen, off = g, 0 // rotated (only ever after everything was stored)
			jr.reset()
		}
		jr.gen = g
		if off >= size {
			if out.flush() != nil {
				return
			}
			if records && s.j.goLive(sink, g, off, from) {
				jr.release() // the writer sends from here on: no view to keep
				waitLive(s.j, sink, quit)
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
			if !jr.holds(off) && out.flushRun() != nil { // the run's bytes go with the view
				return
			}
			rec, n, err := jr.read(off, size)
			if err != nil {
				if g2, _, _ := s.j.at(); g2 != g {
					break // a rotation raced the read: start again at 0
				}
				return // cannot happen (records are written whole before size moves): the app dials again
			}
			if rec.Seq >= from {
				err = out.add(rec, jr.raw(off, n))
			} else {
				err = out.flushRun() // a run holds no record the app did not ask for
			}
			if err != nil {
				return
			}
			off += n
		}
	}
}

// maxRun bounds one Records message (a longer record goes alone).
const maxRun = 4 << 20

// liveSink is an app's connection (protocol 2) whose sender caught up with
// the journal and handed over: the journal's writer (the read loop) sends
// each batch it journals itself, one writev(2) right after the write,
// instead of waking the sender for it (a hand-over between goroutines,
// often threads, per batch). gen and off (under journal.mu) are where the
// app stands: a batch goes to the sink only if it starts there.
type liveSink struct {
	c      net.Conn
	gen    int
	off    int64
	failed chan struct{} // closed when a write failed (the connection is done)
	once   sync.Once
}

// send writes the records b (whole, as journaled) to the app as Records
// messages of at most maxRun bytes (a longer record alone). A nil sink
// sends nothing.
func (k *liveSink) send(b []byte) {
	if k == nil {
		return
	}
	for len(b) > 0 {
		n := 0
		for n < len(b) {
			m := recHdr + int(binary.BigEndian.Uint32(b[n:n+4]))
			if n > 0 && n+m > maxRun {
				break
			}
			n += m
		}
		run := recordSender{c: k.c, run: b[:n]}
		if run.flushRun() != nil {
			k.once.Do(func() { close(k.failed) })
			return
		}
		b = b[n:]
	}
}

// goLive hands the app's connection to the writer if the sender stands at
// the journal's end (gen, off) and the next record is one the app asked
// for (from on): from then on every batch goes to it.
func (j *journal) goLive(k *liveSink, gen int, off int64, from uint64) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if gen != j.gen || off != j.size || j.next < from {
		return false
	}
	k.gen, k.off = gen, off
	j.live = k
	return true
}

// waitLive waits until the connection ends (quit) or a write to it failed,
// then takes the sink back from the writer (a write under way fails on
// the closed connection).
func waitLive(j *journal, k *liveSink, quit <-chan struct{}) {
	select {
	case <-quit:
	case <-k.failed:
	}
	j.mu.Lock()
	if j.live == k {
		j.live = nil
	}
	j.mu.Unlock()
}

// recordSender writes records to an app: runs of raw records as Records
// messages (bw nil), or one message each through bw.
type recordSender struct {
	c   net.Conn
	bw  *bufio.Writer
	run []byte // raw records not sent yet, in the chunk reader's view
}

func (o *recordSender) add(rec Record, raw []byte) error {
	if o.bw != nil {
		return writeRecord(o.bw, rec)
	}
	if len(o.run) > 0 && (len(o.run)+len(raw) > maxRun || !adjacent(o.run, raw)) {
		if err := o.flushRun(); err != nil {
			return err
		}
	}
	if len(o.run) == 0 {
		o.run = raw
	} else {
		o.run = o.run[:len(o.run)+len(raw)]
	}
	return nil
}

// adjacent reports whether b starts where a ends, in one array.
func adjacent(a, b []byte) bool {
	return cap(a) >= len(a)+len(b) && len(b) > 0 && &a[:len(a)+1][len(a)] == &b[0]
}

// flushRun sends the run as one Records message.
func (o *recordSender) flushRun() error {
	if len(o.run) == 0 {
		return nil
	}
	var hdr [5]byte
	hdr[0] = MsgRecords
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(o.run)))
	bufs := net.Buffers{hdr[:], o.run}
	o.run = nil
	_, err := bufs.WriteTo(o.c)
	return err
}

// flush sends what waits (the sender caught up with the journal).
func (o *recordSender) flush() error {
	if o.bw != nil {
		return o.bw.Flush()
	}
	return o.flushRun()
}

// chunkReader reads journal records through a buffer (one pread per
// readAhead, not two per record), or straight from the journal's in-memory tail
// when what is wanted is still there (live frames: no read back).
type chunkReader struct {
	f    io.ReaderAt
	j    *journal // its in-memory tail (nil: the file only)
	gen  int
	buf  []byte // the current view: own, or a slice of the journal's tail
	mine bool   // buf is the journal's tail: records the relay encoded in memory, not read back
	pin  *memChunk
	own  []byte // the buffer file reads go to
	base int64  // file offset of buf[0]
}

func (r *chunkReader) reset() {
	r.release()
	r.buf, r.base, r.mine = nil, 0, false
}

// release lets go of the journal's memory the view is in.
func (r *chunkReader) release() {
	if r.pin != nil {
		r.j.unpin(&r.pin)
	}
}

// holds reports whether the record at off is whole in the current view
// (read will not move the view).
func (r *chunkReader) holds(off int64) bool {
	_, _, ok := r.parse(off)
	return ok
}

// raw is the record of n bytes at off as journaled, in the current view.
func (r *chunkReader) raw(off, n int64) []byte {
	i := off - r.base
	return r.buf[i : i+n : len(r.buf)]
}

// read returns the record at off (below size); its payload aliases the
// buffer until the next read.
func (r *chunkReader) read(off, size int64) (Record, int64, error) {
	if rec, n, ok := r.parse(off); ok {
		return rec, n, nil
	}
	if r.j != nil {
		if b, ok := r.j.tailAt(r.gen, off, size, &r.pin); ok {
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
	r.release()
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
