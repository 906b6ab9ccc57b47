package relay

import (
	"encoding/binary"
	"fmt"
	"io"
)

// slabBytes is the size of the arrays a msgReader reads into.
const slabBytes = 64 << 10

// msgReader reads messages with one read(2) for many of them and no
// allocation per message: payloads are slices of a slab (capped to their
// length), and a full slab is left to the payloads that point into it (it
// is never written again) while reading goes on in a fresh one. A payload
// over a quarter slab gets an array of its own.
type msgReader struct {
	r          io.Reader
	slab       []byte
	start, end int // slab[start:end] is read and not yet taken
}

func newMsgReader(r io.Reader) *msgReader { return &msgReader{r: r} }

// next reads one message as ReadMsg does.
func (m *msgReader) next() (Msg, error) {
	if err := m.fill(5, true); err != nil {
		return Msg{}, err
	}
	hdr := m.slab[m.start : m.start+5]
	n := int(binary.BigEndian.Uint32(hdr[1:]))
	if n > MaxMsgBytes {
		return Msg{}, fmt.Errorf("relay: message of %d bytes: %w", n, ErrBadMessage)
	}
	msg := Msg{Type: hdr[0]}
	var buf []byte
	if n > slabBytes/4 {
		buf = make([]byte, n)
		m.start += 5
		k := copy(buf, m.slab[m.start:m.end])
		m.start += k
		if _, err := io.ReadFull(m.r, buf[k:]); err != nil {
			return Msg{}, fmt.Errorf("relay: short message: %w", noEOF(err))
		}
	} else {
		if err := m.fill(5+n, false); err != nil {
			return Msg{}, fmt.Errorf("relay: short message: %w", noEOF(err))
		}
		buf = m.slab[m.start+5 : m.start+5+n : m.start+5+n]
		m.start += 5 + n
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
