package relay

import (
	"bytes"
	"io"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// pendingRec is a record waiting for the next journal write.
type pendingRec struct {
	kind byte
	line []byte
}

// readLoop journals the agent's stdout lines with the runtime's rules
// (agent.ReadLines: blank lines skipped, "\r\n" trimmed, a line over
// agent.MaxFrameBytes replaced by its first KiB as a too-long record), but
// one journal write per read(2) of the pipe, not one per line: under a
// firehose a single write carries hundreds of frames. It stops reading (the
// agent blocks) while more than MaxUnacked bytes wait for an app.
func (s *server) readLoop(r io.Reader) {
	chunk := make([]byte, 256<<10)
	var partial []byte
	skipping := false
	var recs []pendingRec
	for {
		s.waitRoom()
		n, err := r.Read(chunk)
		data := chunk[:n]
		recs = recs[:0]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				if !skipping {
					partial, skipping, recs = s.grow(partial, data, recs)
				}
				break
			}
			part := data[:i]
			data = data[i+1:]
			if skipping {
				skipping = false
				continue
			}
			if len(partial) == 0 && len(part) <= agent.MaxFrameBytes+1 {
				recs = addLine(recs, part) // aliases chunk until the batch is written
				continue
			}
			var tooLong bool
			partial, tooLong, recs = s.grow(partial, part, recs)
			if !tooLong {
				recs = addLine(recs, partial)
			}
			partial = nil // its bytes belong to the batch now
		}
		if err != nil && !skipping && len(partial) > 0 {
			recs = addLine(recs, partial) // a last line without a newline
		}
		if len(recs) > 0 {
			if jerr := s.j.appendBatch(recs); jerr != nil {
				s.errT.Write([]byte(jerr.Error() + "\n"))
				return
			}
			s.touch()
		}
		if err != nil {
			return
		}
	}
}

// grow appends data to the partial line; past the limit it queues the
// too-long record instead and reports that the rest of the line is skipped.
func (s *server) grow(partial, data []byte, recs []pendingRec) ([]byte, bool, []pendingRec) {
	if len(partial)+len(data) <= agent.MaxFrameBytes+1 {
		return append(partial, data...), false, recs
	}
	head := append(partial[:len(partial):len(partial)], data[:min(len(data), 1024)]...)
	head = head[:min(len(head), 1024)]
	return nil, true, append(recs, pendingRec{kind: recTooLong, line: head})
}

func addLine(recs []pendingRec, line []byte) []pendingRec {
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return recs
	}
	return append(recs, pendingRec{kind: recFrame, line: line})
}
