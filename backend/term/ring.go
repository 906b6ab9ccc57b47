package term

import "bytes"

// ring keeps the last max bytes written to it, in amortized linear time:
// it grows to twice max, then drops all but the last max at once.
type ring struct {
	max int
	buf []byte
}

func newRing(max int) ring {
	if max == 0 {
		max = DefaultScrollback
	}
	if max < 0 {
		max = 0
	}
	return ring{max: max}
}

func (r *ring) write(p []byte) {
	if r.max == 0 {
		return
	}
	r.buf = append(r.buf, p...)
	if len(r.buf) > 2*r.max {
		r.buf = append(make([]byte, 0, 2*r.max), r.buf[len(r.buf)-r.max:]...)
	}
}

// bytes returns a copy of the kept output (at most max bytes). When older
// output was dropped it starts after a line break when one is near, so a
// replay does not begin inside an escape sequence.
func (r *ring) bytes() []byte {
	b := r.buf
	if len(b) > r.max {
		b = b[len(b)-r.max:]
		if i := bytes.IndexByte(b[:min(len(b), 4096)], '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return bytes.Clone(b)
}
