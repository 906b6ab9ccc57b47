package opencode

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// FormatName is the raw format name of OpenCode frames in the store.
const FormatName = "opencode"

// Format is OpenCode's raw format: frames are SSE data payloads (or
// `opencode run --format json` lines), normalized by Normalizer.
func Format() agent.Format {
	return agent.Format{
		Name:   FormatName,
		New:    func() agent.Normalizer { return NewNormalizer() },
		Frames: Frames,
	}
}

// Frames cuts r into frames. It reads a Server-Sent Events stream: the
// `data:` lines of one event are joined with "\n" into one frame, an event
// ends at a blank line, comments (":"), `event:`, `id:` and `retry:` fields
// are skipped. A line that starts with "{" is a frame on its own, so
// `opencode run --format json` output and stored raw frames (one JSON per
// line) read too.
func Frames(r io.Reader) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 4<<10), agent.MaxFrameBytes) // grows as needed
		var data []byte
		have := false
		flush := func() bool {
			if !have {
				return true
			}
			f := data
			data, have = nil, false
			if len(bytes.TrimSpace(f)) == 0 {
				return true
			}
			return yield(f, nil)
		}
		for sc.Scan() {
			line := bytes.TrimRight(sc.Bytes(), "\r")
			switch {
			case len(line) == 0:
				if !flush() {
					return
				}
			case line[0] == ':':
			case line[0] == '{':
				if !flush() {
					return
				}
				if !yield(bytes.Clone(line), nil) {
					return
				}
			default:
				field, value, _ := bytes.Cut(line, []byte(":"))
				if string(field) != "data" {
					continue
				}
				value = bytes.TrimPrefix(value, []byte(" "))
				if have {
					data = append(data, '\n')
				}
				data = append(data, value...)
				have = true
			}
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = fmt.Errorf("%w (over %d bytes): %w", agent.ErrFrameTooLong, agent.MaxFrameBytes, err)
			}
			flush()
			yield(nil, err)
			return
		}
		flush()
	}
}
