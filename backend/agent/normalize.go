package agent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"sort"
)

// Normalizer turns one backend's raw frames into normalized events. It is a
// pure, stateful value: no I/O, no clock, no randomness, so the same frames
// always give the same events. Live sessions, `jean-claude normalize` and
// re-normalization of stored history all run the same Normalizer.
type Normalizer interface {
	// Feed takes one raw frame and returns the events it causes (maybe
	// none). A malformed frame gives an error event carrying the frame in
	// Raw; Feed never panics and never drops a frame silently.
	Feed(frame []byte) []Event
	// Flush ends the stream and returns what was still held back.
	Flush() []Event
}

// FrameKeeper is a Normalizer that can reference the frames it is fed in
// its events' raw data instead of copying them. Its caller calls KeepFrames
// once, before the first Feed, to promise that no frame is modified after
// Feed: the runtime's Stream does (its frames are fresh slices — ReadLines',
// a relay's payloads — that it keeps to store as they are). Callers that
// reuse a buffer (a bufio.Scanner) do not, and get copies.
type FrameKeeper interface {
	KeepFrames()
}

// Format is one raw format: how to cut a byte stream into frames and how to
// normalize them. Its Name is what the store keeps as rawFormat.
type Format struct {
	Name string
	// New returns a fresh normalizer.
	New func() Normalizer
	// Frames cuts r into raw frames. Nil means one frame per line.
	Frames func(r io.Reader) iter.Seq2[[]byte, error]
	// Steps: the normalizer splits a turn's assistant output into steps,
	// one message each, where it once kept the whole turn as one message.
	// A message stored before then holds the whole turn's raw data;
	// Rebuild folds the later steps it yields back into it.
	Steps bool
}

// Split returns the frames of r for this format.
func (f Format) Split(r io.Reader) iter.Seq2[[]byte, error] {
	if f.Frames != nil {
		return f.Frames(r)
	}
	return Lines(r)
}

// MaxFrameBytes bounds one raw frame. Agent lines can be megabytes (a file
// read back whole); past this a frame is an error, not a crash.
const MaxFrameBytes = 64 << 20

// ErrFrameTooLong: a frame exceeded MaxFrameBytes.
var ErrFrameTooLong = errors.New("agent frame too long")

// AppendFrame appends frame to raw data buf (frames joined by newlines:
// none before the first) and returns it. It doubles the capacity when it
// grows (append grows a large slice by only 1.25×), so a message's raw data
// grown frame by frame costs linear bytes. Like append, it writes only past
// len(buf): slices handed out of buf before keep their bytes.
func AppendFrame(buf, frame []byte) []byte {
	if need := len(buf) + 1 + len(frame); need > cap(buf) {
		grown := make([]byte, len(buf), max(2*cap(buf), need, 1024))
		copy(grown, buf)
		buf = grown
	}
	if len(buf) > 0 {
		buf = append(buf, '\n')
	}
	return append(buf, frame...)
}

// Lines yields the non-empty lines of r (without the line break), each a
// fresh slice the caller may keep. Lines up to MaxFrameBytes are accepted.
func Lines(r io.Reader) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 64<<10), MaxFrameBytes) // grows as needed
		for sc.Scan() {
			line := bytes.TrimRight(sc.Bytes(), "\r")
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if !yield(bytes.Clone(line), nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = fmt.Errorf("%w (over %d bytes): %w", ErrFrameTooLong, MaxFrameBytes, err)
			}
			yield(nil, err)
		}
	}
}

// Normalize runs every frame of r through a fresh normalizer of f and yields
// the events, then the flushed ones. The error is an I/O error only.
func Normalize(f Format, r io.Reader) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		n := f.New()
		for frame, err := range f.Split(r) {
			if err != nil {
				yield(Event{}, err)
				return
			}
			for _, ev := range n.Feed(frame) {
				if !yield(ev, nil) {
					return
				}
			}
		}
		for _, ev := range n.Flush() {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// Formats is the set of raw formats the app can read, by name.
type Formats struct {
	byName map[string]Format
}

// NewFormats returns a set holding fs.
func NewFormats(fs ...Format) *Formats {
	s := &Formats{byName: map[string]Format{}}
	for _, f := range fs {
		s.byName[f.Name] = f
	}
	return s
}

// ErrUnknownFormat: no raw format of that name.
var ErrUnknownFormat = errors.New("unknown raw format")

// Get returns the format called name.
func (s *Formats) Get(name string) (Format, error) {
	f, ok := s.byName[name]
	if !ok {
		return Format{}, fmt.Errorf("%w %q (known: %v)", ErrUnknownFormat, name, s.Names())
	}
	return f, nil
}

// Names lists the known formats, sorted.
func (s *Formats) Names() []string {
	out := make([]string, 0, len(s.byName))
	for n := range s.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
