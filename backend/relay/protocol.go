// Package relay keeps an agent running when the app is gone. A relay is the
// jean-claude binary run as `jean-claude relay`: in its own session and
// process group, with no window, it starts one agent (never through a
// shell), owns the agent's stdio, appends everything the agent writes to
// its stdout, as it writes it, to a per-task journal file (journal.go), and
// serves the app over a unix socket
// (mode 0600, token checked on every connection). The app reads and controls
// the agent only through the relay; when the app exits or crashes the agent
// keeps running and journaling, and the next app attaches again and takes
// the journal from the last sequence it stored.
//
// The protocol (protocol.go) runs over any io.ReadWriter, so the same client
// works over a unix socket, a pipe, or `ssh host jean-claude relay dial SOCK`.
// See docs/relay.md.
package relay

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol version sent in Hello and Welcome. A relay of
// this binary (3) sends the journal's bytes as they are (Base, then Data
// messages: the client numbers the lines) and serves only clients of
// version 3; the client also reads a relay of an older binary (2: Records
// messages; 1: Frame messages), which an app may adopt after an upgrade.
const Version = 3

// MaxMsgBytes bounds one protocol message (a frame is at most
// agent.MaxFrameBytes plus its header).
const MaxMsgBytes = 64 << 20

// Message types. Every message is
//
//	type (1 byte) | length (4 bytes, big endian) | payload (length bytes)
//
// Payloads: JSON for Hello, Welcome, Exit, Stop and Error; for Frame,
// TooLong and Ack an 8-byte big-endian sequence number (then, for Frame and
// TooLong, the line without its newline; for Ack in version 3, the stream
// offset (8) up to which everything is stored and a flag byte, 1 when the
// agent's end is stored too); for Signal a 4-byte signal number; for
// Stdin the line (the relay adds the newline); empty otherwise.
//
// Version 3: Base holds the sequence (8) of the first line of what follows
// and its stream offset (8, the count of the agent's stdout bytes before
// it); Data holds the agent's stdout bytes that follow, as it wrote them
// (a line may span Data messages); to a local client, Avail (8: a stream
// offset) says the file holds the bytes up to there instead, and the
// client reads them from the file. The client reads both as the Frame and
// TooLong messages the lines stand for (lineSplitter), and fills in the
// Exit's sequence (the relay does not count lines). Version 2: Records
// holds journal records (records.go), each read as its Frame, TooLong or
// Exit message. Client.Next never returns a Base, Data or Records message.
const (
	// client → relay
	MsgHello      byte = 'H' // Hello: must be the first message
	MsgStdin      byte = 'I' // one line for the agent's stdin
	MsgCloseStdin byte = 'C' // close the agent's stdin
	MsgSignal     byte = 'S' // signal the agent's process group
	MsgStop       byte = 'T' // Stop: end the agent gracefully
	MsgAck        byte = 'A' // everything up to this sequence is stored
	MsgBye        byte = 'B' // detach; the agent keeps running
	// relay → client
	MsgWelcome byte = 'W' // Welcome: the answer to Hello
	MsgBase    byte = 'O' // version 3: where the Data that follows starts
	MsgData    byte = 'D' // version 3: the agent's stdout bytes
	MsgAvail   byte = 'N' // version 3, to a local client: the journal holds the agent's bytes up to this stream offset
	MsgFrame   byte = 'F' // one stdout line with its sequence
	MsgRecords byte = 'R' // version 2: journal records as journaled, each a Frame, TooLong or Exit
	MsgTooLong byte = 'L' // a line over the limit: its first KiB
	MsgExit    byte = 'X' // Exit: the agent ended (its sequence is Exit.Seq)
	MsgError   byte = 'E' // ErrorMsg: the relay refuses (bad token) and closes
)

// Hello opens a connection.
type Hello struct {
	Version int    `json:"version"`
	Token   string `json:"token"`
	// From is the first sequence the client wants (its last stored + 1).
	// A relay of version 2 replays the journal from there; one of version
	// 3 sends it whole and the client drops what comes before From.
	From uint64 `json:"from"`
	// Local: the client reads the journal file itself (it runs on the
	// relay's machine and opened the file): the relay sends Avail
	// messages instead of Data, and the bytes never cross the socket.
	Local bool `json:"local,omitempty"`
}

// Welcome answers Hello.
type Welcome struct {
	Version  int    `json:"version"`
	TaskID   string `json:"taskId"`
	Role     string `json:"role"`
	RelayPID int    `json:"relayPid"`
	AgentPID int    `json:"agentPid"`
	// First is the oldest sequence still journaled (earlier ones were
	// acknowledged and rotated away); Next is the next sequence to be
	// written (version 2 only: a relay of version 3 does not count lines).
	First uint64 `json:"first"`
	Next  uint64 `json:"next,omitempty"`
	// Exited is set when the agent has already ended (an Exit follows the replay).
	Exited bool `json:"exited"`
}

// Exit is the agent's end, written beside the journal. Seq is the
// sequence after the agent's last line: filled in by whoever numbered the
// lines (the client, ReadJournal).
type Exit struct {
	Seq    uint64 `json:"seq"`
	Code   int    `json:"code"`             // -1 when killed by a signal
	Signal int    `json:"signal,omitempty"` // the signal that ended it
	Err    string `json:"err,omitempty"`    // the wait error, if any
	Stderr string `json:"stderr,omitempty"` // the tail of its stderr
	// Stopped is set when the end was asked for (Stop, or the relay's idle
	// stop); Reason says why in words.
	Stopped bool   `json:"stopped,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Stop asks the relay to end the agent: stdin closed, after Grace SIGTERM to
// the group, after a further WaitDelay SIGKILL.
type Stop struct {
	GraceMS int64  `json:"graceMs"`
	Reason  string `json:"reason,omitempty"`
}

// ErrorMsg is the payload of MsgError.
type ErrorMsg struct {
	Error string `json:"error"`
}

// ErrBadMessage is returned for a malformed message.
var ErrBadMessage = errors.New("relay: malformed message")

// Msg is one decoded message. Payload is owned by the caller.
type Msg struct {
	Type    byte
	Seq     uint64 // Frame, TooLong, Ack
	Payload []byte // the line (Frame, TooLong, Stdin), JSON, or signal bytes
}

// WriteMsg writes one message with an optional sequence prefix (hasSeq) and
// payload; it is one Write call when w is unbuffered.
func WriteMsg(w io.Writer, typ byte, seq uint64, hasSeq bool, payload []byte) error {
	n := len(payload)
	if hasSeq {
		n += 8
	}
	if n > MaxMsgBytes {
		return fmt.Errorf("relay: message of %d bytes: %w", n, ErrBadMessage)
	}
	buf := make([]byte, 5, 5+n)
	buf[0] = typ
	binary.BigEndian.PutUint32(buf[1:5], uint32(n))
	if hasSeq {
		buf = binary.BigEndian.AppendUint64(buf, seq)
	}
	buf = append(buf, payload...)
	_, err := w.Write(buf)
	return err
}

// WriteJSON writes a message whose payload is v as JSON.
func WriteJSON(w io.Writer, typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return WriteMsg(w, typ, 0, false, b)
}

// hasSeq reports whether a message type carries a sequence prefix.
func hasSeq(typ byte) bool { return typ == MsgFrame || typ == MsgTooLong || typ == MsgAck }

// ReadMsg reads one message (use a bufio.Reader for r).
func ReadMsg(r io.Reader) (Msg, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return Msg{}, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > MaxMsgBytes {
		return Msg{}, fmt.Errorf("relay: message of %d bytes: %w", n, ErrBadMessage)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return Msg{}, fmt.Errorf("relay: short message: %w", noEOF(err))
	}
	m := Msg{Type: hdr[0], Payload: buf}
	if hasSeq(m.Type) {
		if n < 8 {
			return Msg{}, fmt.Errorf("relay: message %q without sequence: %w", m.Type, ErrBadMessage)
		}
		m.Seq, m.Payload = binary.BigEndian.Uint64(buf), buf[8:]
	}
	return m, nil
}

// JSON decodes m's payload into v.
func (m Msg) JSON(v any) error {
	if err := json.Unmarshal(m.Payload, v); err != nil {
		return fmt.Errorf("relay: message %q: %w (%w)", m.Type, err, ErrBadMessage)
	}
	return nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
