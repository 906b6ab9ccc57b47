package relay

import (
	"bytes"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// lineSplitter numbers the agent's stdout lines as the journal holds them
// (protocol 3: the bytes as the agent wrote them), with the runtime's rules
// (agent.ReadLines): blank lines are skipped, a trailing "\r" is trimmed,
// and a line over agent.MaxFrameBytes is one too-long frame holding its
// first KiB. The relay never splits lines; the client and ReadJournal do,
// each from a line's start with the sequence the journal says it has, so
// both number every line alike, live, in a replay, or from the file.
type lineSplitter struct {
	seq uint64 // the next line's sequence
	off int64  // stream offset of the next byte
	// parts are the current line's bytes so far (it spans reads), n of
	// them: joined once, into a slice of the line's size, at its end (as
	// agent.ReadLines does: a long line costs about twice its size).
	parts   [][]byte
	n       int
	tooLong bool   // the current line is over the limit: its bytes are skipped
	head    []byte // its first KiB
}

// tooLongHead is how much of a line over the limit is kept.
const tooLongHead = 1024

// reset starts at the line that begins at stream offset off with sequence seq.
func (l *lineSplitter) reset(seq uint64, off int64) {
	*l = lineSplitter{seq: seq, off: off}
}

// more takes b, bytes of a line not ended yet; stable says that they stay
// as they are (else they are copied).
func (l *lineSplitter) more(b []byte, stable bool) {
	l.off += int64(len(b))
	if l.tooLong || len(b) == 0 {
		return
	}
	if l.n+len(b) > agent.MaxFrameBytes+1 {
		l.skip(b)
		return
	}
	if !stable {
		b = bytes.Clone(b)
	}
	l.parts = append(l.parts, b)
	l.n += len(b)
}

// skip makes the current line too long, keeping its first KiB.
func (l *lineSplitter) skip(b []byte) {
	head := make([]byte, 0, tooLongHead)
	for _, p := range append(l.parts, b) {
		head = append(head, p[:min(len(p), tooLongHead-len(head))]...)
	}
	l.head, l.parts, l.n, l.tooLong = head, nil, 0, true
}

// end ends the current line with b (its last bytes, without the newline;
// the newline counted when nl) and returns it as a frame or a too-long
// frame; ok false for a blank line, which has no sequence. A frame's
// payload may alias b.
func (l *lineSplitter) end(b []byte, nl bool) (msg Msg, ok bool) {
	l.off += int64(len(b))
	if nl {
		l.off++
	}
	limit := agent.MaxFrameBytes // as agent.ReadLines: with the newline, over max+1
	if !nl {
		limit++
	}
	if !l.tooLong && l.n+len(b) > limit {
		l.skip(b)
	}
	if l.tooLong {
		msg = Msg{Type: MsgTooLong, Seq: l.seq, Payload: l.head}
		l.seq++
		l.tooLong, l.head = false, nil
		return msg, true
	}
	if l.n > 0 {
		line := make([]byte, 0, l.n+len(b))
		for _, p := range l.parts {
			line = append(line, p...)
		}
		b, l.parts, l.n = append(line, b...), nil, 0
	}
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return Msg{}, false
	}
	msg = Msg{Type: MsgFrame, Seq: l.seq, Payload: b}
	l.seq++
	return msg, true
}

// take reads b (the bytes that follow) up to the end of a line: it returns
// how many bytes it took and, when a line ended there, its frame (ok false
// for a blank line or when b ended first). stable says that b stays as it
// is (else what is kept is copied; a frame's payload aliases b).
func (l *lineSplitter) take(b []byte, stable bool) (int, Msg, bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		l.more(b, stable)
		return len(b), Msg{}, false
	}
	msg, ok := l.end(b[:i:i], true)
	return i + 1, msg, ok
}

// pending reports whether a line without its newline is under way: at the
// agent's end it is its last line.
func (l *lineSplitter) pending() bool { return l.n > 0 || l.tooLong }
