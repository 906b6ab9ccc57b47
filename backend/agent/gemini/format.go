package gemini

import (
	"bytes"
	"fmt"
	"io"
	"iter"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// Format returns the "gemini" raw format (stream-json lines).
func Format() agent.Format {
	return agent.Format{Name: FormatName, New: func() agent.Normalizer { return NewNormalizer() }, Steps: true}
}

// JSONFormat returns the "gemini-json" raw format: `--output-format json`,
// whose whole output is one frame.
func JSONFormat() agent.Format {
	return agent.Format{Name: JSONFormatName, New: func() agent.Normalizer { return &JSONNormalizer{} }, Frames: wholeInput}
}

// wholeInput yields all of r as one frame (nothing when r is blank).
func wholeInput(r io.Reader) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		b, err := io.ReadAll(io.LimitReader(r, agent.MaxFrameBytes+1))
		if err != nil {
			yield(nil, err)
			return
		}
		if len(b) > agent.MaxFrameBytes {
			yield(nil, fmt.Errorf("%w (over %d bytes)", agent.ErrFrameTooLong, agent.MaxFrameBytes))
			return
		}
		if len(bytes.TrimSpace(b)) > 0 {
			yield(b, nil)
		}
	}
}
