package relay

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

// slabBytes is the size of the arrays a msgReader reads into.
const slabBytes = 64 << 10

// msgReader reads messages with one read(2) for many of them and no
// allocation per message: payloads are slices of a slab (capped to their
// length), and a full slab is left to the payloads that point into it (it
// is never written again) while reading goes on in a fresh one. A payload
// over a quarter slab gets an array of its own. The records of a Records
// message are read one at a time, each as the message it stands for.
type msgReader struct {
	r          io.Reader
	slab       []byte
	start, end int // slab[start:end] is read and not yet taken
	records    int // bytes of the current Records message not yet read
	// Version 3: the lines of Data messages (data: bytes of the current
	// one not yet read), numbered from the last Base.
	data  int
	lines lineSplitter
	exit  *Msg // the Exit, held back while the last line goes first
	// frameEnd, if set, is told each line's sequence and the stream
	// offset after it (the client's acks name both).
	frameEnd func(seq uint64, off int64, exit bool)
	// fr, for a local client, reads the bytes Avail messages announce
	// from the journal file.
	fr *fileReader
}

// fileReader reads the journal file of a local client into slabs, as the
// msgReader reads the socket: a slab is never written again once read
// into, so lines handed out may alias it.
type fileReader struct {
	f          io.ReaderAt
	base       int64 // stream offset of the file's first byte after the header
	pos, avail int64 // stream offsets: the next byte to read, the end of what the relay announced
	slab       []byte
	start, end int
}

// pending reports whether announced bytes are not taken yet.
func (r *fileReader) pending() bool { return r != nil && (r.start < r.end || r.pos < r.avail) }

func newMsgReader(r io.Reader) *msgReader { return &msgReader{r: r} }

// next reads one message as ReadMsg does; never a Records message, but
// the records in it one by one.
func (m *msgReader) next() (Msg, error) {
	for {
		if m.records > 0 {
			msg, ok, err := m.record()
			if err != nil || ok {
				return msg, err
			}
			continue
		}
		if m.data > 0 {
			msg, ok, err := m.dataLine()
			if err != nil || ok {
				return msg, err
			}
			continue
		}
		if m.fr.pending() {
			msg, ok, err := m.fileLine()
			if err != nil || ok {
				return msg, err
			}
			continue
		}
		if m.exit != nil {
			return m.takeExit()
		}
		msg, err := m.message()
		if err != nil {
			return msg, err
		}
		switch msg.Type {
		case MsgRecords, MsgData:
			continue
		case MsgBase:
			if len(msg.Payload) < 16 {
				return Msg{}, fmt.Errorf("relay: base message of %d bytes: %w", len(msg.Payload), ErrBadMessage)
			}
			base := int64(binary.BigEndian.Uint64(msg.Payload[8:]))
			m.lines.reset(binary.BigEndian.Uint64(msg.Payload), base)
			if m.fr != nil {
				m.fr.base, m.fr.pos, m.fr.avail = base, max(m.fr.pos, base), max(m.fr.avail, base)
			}
			continue
		case MsgAvail:
			if len(msg.Payload) < 8 || m.fr == nil {
				return Msg{}, fmt.Errorf("relay: avail message to a client that does not read the file: %w", ErrBadMessage)
			}
			m.fr.avail = max(m.fr.avail, int64(binary.BigEndian.Uint64(msg.Payload)))
			continue
		case MsgExit:
			if m.lines.seq > 0 { // version 3: the last line first, then the exit with its sequence
				m.exit = &msg
				if m.lines.pending() {
					if line, ok := m.lines.end(nil, false); ok {
						return m.frame(line), nil
					}
				}
				continue
			}
		}
		return msg, nil
	}
}

// dataLine reads the current Data message up to the end of a line and
// returns the line (ok false: the message ended first, or a blank line).
func (m *msgReader) dataLine() (Msg, bool, error) {
	if m.end == m.start {
		if err := m.fill(1, false); err != nil {
			return Msg{}, false, fmt.Errorf("relay: short message: %w", noEOF(err))
		}
	}
	n, line, ok := m.lines.take(m.slab[m.start:min(m.end, m.start+m.data)], true) // the slab is never written again
	m.start += n
	m.data -= n
	if !ok {
		return Msg{}, false, nil
	}
	return m.frame(line), true, nil
}

// fileSlab is the size of the arrays a local client reads the journal into.
const fileSlab = 256 << 10

// fileLine is dataLine for the bytes a local client reads from the file.
func (m *msgReader) fileLine() (Msg, bool, error) {
	r := m.fr
	if r.start == r.end {
		if len(r.slab)-r.end < fileSlab/4 {
			r.slab, r.start, r.end = make([]byte, fileSlab), 0, 0
		}
		want := min(int64(len(r.slab)-r.end), r.avail-r.pos)
		k, err := r.f.ReadAt(r.slab[r.end:r.end+int(want)], rawHdr+r.pos-r.base)
		if k == 0 {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF // the file ends before what was announced
			}
			return Msg{}, false, fmt.Errorf("relay: journal read at %d: %w", r.pos, err)
		}
		r.end += k
		r.pos += int64(k)
	}
	n, line, ok := m.lines.take(r.slab[r.start:r.end], true) // the slab is never written again
	r.start += n
	if !ok {
		return Msg{}, false, nil
	}
	return m.frame(line), true, nil
}

// frame tells frameEnd where the line ends.
func (m *msgReader) frame(line Msg) Msg {
	if m.frameEnd != nil {
		m.frameEnd(line.Seq, m.lines.off, false)
	}
	return line
}

// takeExit returns the held-back Exit with the sequence after the last line.
func (m *msgReader) takeExit() (Msg, error) {
	msg := *m.exit
	m.exit = nil
	var ex Exit
	if err := msg.JSON(&ex); err != nil {
		return Msg{}, err
	}
	ex.Seq = m.lines.seq
	b, err := json.Marshal(ex)
	if err != nil {
		return Msg{}, err
	}
	msg.Payload = b
	if m.frameEnd != nil {
		m.frameEnd(ex.Seq, m.lines.off, true)
	}
	return msg, nil
}

// message reads one message (a Records message: its header only).
func (m *msgReader) message() (Msg, error) {
	if err := m.fill(5, true); err != nil {
		return Msg{}, err
	}
	hdr := m.slab[m.start : m.start+5]
	n := int(binary.BigEndian.Uint32(hdr[1:]))
	msg := Msg{Type: hdr[0]}
	switch msg.Type {
	case MsgRecords:
		m.start += 5
		m.records = n
		return msg, nil
	case MsgData:
		m.start += 5
		m.data = n
		return msg, nil
	}
	if n > MaxMsgBytes {
		return Msg{}, fmt.Errorf("relay: message of %d bytes: %w", n, ErrBadMessage)
	}
	buf, err := m.payload(5, n)
	if err != nil {
		return Msg{}, err
	}
	msg.Payload = buf
	if hasSeq(msg.Type) {
		if n < 8 {
			return Msg{}, fmt.Errorf("relay: message %q without sequence: %w", msg.Type, ErrBadMessage)
		}
		msg.Seq, msg.Payload = binary.BigEndian.Uint64(buf), buf[8:]
	}
	return msg, nil
}

// record reads the next record of a Records message as its message (ok
// false: a kind the client does not know, skipped). The byte stream is
// reliable: the records' checksums guard the journal file, not the wire.
func (m *msgReader) record() (Msg, bool, error) {
	if m.records < recHdr {
		return Msg{}, false, fmt.Errorf("relay: records message cut: %w", ErrBadMessage)
	}
	if err := m.fill(recHdr, false); err != nil {
		return Msg{}, false, fmt.Errorf("relay: short message: %w", noEOF(err))
	}
	h := m.slab[m.start : m.start+recHdr]
	n := int(binary.BigEndian.Uint32(h[0:4]))
	if n > MaxMsgBytes || recHdr+n > m.records {
		return Msg{}, false, fmt.Errorf("relay: record of %d bytes: %w", n, ErrBadMessage)
	}
	kind, seq := h[8], binary.BigEndian.Uint64(h[9:17])
	buf, err := m.payload(recHdr, n)
	if err != nil {
		return Msg{}, false, err
	}
	m.records -= recHdr + n
	switch kind {
	case recFrame:
		return Msg{Type: MsgFrame, Seq: seq, Payload: buf}, true, nil
	case recTooLong:
		return Msg{Type: MsgTooLong, Seq: seq, Payload: buf}, true, nil
	case recExit:
		return Msg{Type: MsgExit, Payload: buf}, true, nil
	}
	return Msg{}, false, nil
}

// payload takes a header of hdr bytes (in the slab) and the n bytes after it.
func (m *msgReader) payload(hdr, n int) ([]byte, error) {
	if n > slabBytes/4 {
		buf := make([]byte, n)
		m.start += hdr
		k := copy(buf, m.slab[m.start:m.end])
		m.start += k
		if _, err := io.ReadFull(m.r, buf[k:]); err != nil {
			return nil, fmt.Errorf("relay: short message: %w", noEOF(err))
		}
		return buf, nil
	}
	if err := m.fill(hdr+n, false); err != nil {
		return nil, fmt.Errorf("relay: short message: %w", noEOF(err))
	}
	buf := m.slab[m.start+hdr : m.start+hdr+n : m.start+hdr+n]
	m.start += hdr + n
	return buf, nil
}

// fill reads until slab[start:end] holds at least want bytes (want is at
// most a quarter slab plus a header). clean reports an io.EOF before any
// byte as io.EOF.
func (m *msgReader) fill(want int, clean bool) error {
	if m.end-m.start >= want {
		return nil
	}
	if len(m.slab)-m.start < want {
		fresh := make([]byte, slabBytes)
		m.end = copy(fresh, m.slab[m.start:m.end])
		m.slab, m.start = fresh, 0
	}
	for m.end-m.start < want {
		k, err := m.r.Read(m.slab[m.end:])
		m.end += k
		if err != nil {
			if m.end-m.start >= want {
				return nil
			}
			if err == io.EOF && !(clean && m.end == m.start) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}
