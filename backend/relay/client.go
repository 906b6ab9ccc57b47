package relay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Client is an app's connection to one relay, over any byte stream (a unix
// socket, or the stdio of `ssh host jean-claude relay dial SOCK`). One
// goroutine reads with Next; the control methods may be called from any
// goroutine.
type Client struct {
	rw      io.ReadWriteCloser
	mr      *msgReader
	wmu     sync.Mutex
	Welcome Welcome
	journal *os.File // a local client's journal file (nil: the bytes come over rw)
	// Version 3: the relay sends the whole journal; lines before from are
	// dropped here. Acks name a line's sequence and the stream offset
	// after it: ends holds those of the lines read and not acked yet.
	raw     bool
	from    uint64
	amu     sync.Mutex
	ends    []lineEnd
	acked   uint64 // the last line acked
	exitSeq uint64 // the Exit's sequence, once read
	want    uint64 // an ack asked for before its line was read: sent once it is
}

// lineEnd is where a line read ends.
type lineEnd struct {
	seq uint64
	off int64
}

// ErrRefused is returned when the relay refuses the Hello (bad token).
var ErrRefused = errors.New("relay: refused")

// Attach says Hello over rw and reads the Welcome. from is the first
// sequence wanted (the last one the app stored + 1; 1 for everything).
func Attach(rw io.ReadWriteCloser, token string, from uint64) (*Client, error) {
	return attach(rw, token, from, nil)
}

// attach is Attach; with journal (the relay's journal file, opened by an
// app on the relay's machine) the client reads the agent's bytes from it
// and the relay only says how far they go (a relay of protocol 3).
func attach(rw io.ReadWriteCloser, token string, from uint64, journal *os.File) (*Client, error) {
	c := &Client{rw: rw, mr: newMsgReader(rw), journal: journal}
	if err := WriteJSON(rw, MsgHello, Hello{Version: Version, Token: token, From: from, Local: journal != nil}); err != nil {
		c.Close()
		return nil, fmt.Errorf("relay: hello: %w", err)
	}
	m, err := c.mr.next()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("relay: welcome: %w", err)
	}
	switch m.Type {
	case MsgWelcome:
		if err := m.JSON(&c.Welcome); err != nil {
			c.Close()
			return nil, err
		}
		if c.Welcome.Version >= 3 {
			c.raw, c.from = true, max(from, 1)
			c.mr.frameEnd = c.lineRead
			if journal != nil {
				c.mr.fr = &fileReader{f: journal}
			}
		}
		return c, nil
	case MsgError:
		var e ErrorMsg
		_ = m.JSON(&e)
		c.Close()
		return nil, fmt.Errorf("%w: %s", ErrRefused, e.Error)
	default:
		c.Close()
		return nil, fmt.Errorf("relay: welcome: got %q: %w", m.Type, ErrBadMessage)
	}
}

// Dial connects to a relay's unix socket and attaches.
func Dial(ctx context.Context, socket, token string, from uint64) (*Client, error) {
	return dialWith(ctx, socket, token, from, nil)
}

func dialWith(ctx context.Context, socket, token string, from uint64, journal *os.File) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", socket)
	if err != nil {
		if journal != nil {
			journal.Close()
		}
		return nil, fmt.Errorf("relay: dial %s: %w", socket, err)
	}
	if uc, ok := conn.(*net.UnixConn); ok {
		_ = uc.SetReadBuffer(socketBuffer) // best effort, as the relay's send side
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	c, err := attach(conn, token, from, journal)
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(time.Time{})
	return c, nil
}

// Next returns the next Frame, TooLong or Exit message (io.EOF when the
// relay closed the connection).
func (c *Client) Next() (Msg, error) {
	for {
		m, err := c.mr.next()
		if err != nil || !c.raw || m.Seq >= c.from || (m.Type != MsgFrame && m.Type != MsgTooLong) {
			return m, err
		}
		if m.Seq+1 == c.from { // the app has them all: the relay may let them go
			go c.Ack(m.Seq) //nolint:errcheck // not from the reading goroutine: a send may wait on the relay
		}
	}
}

// lineRead keeps where a line (or the Exit) ends, for the acks, and sends
// an ack that was asked for before its line came.
func (c *Client) lineRead(seq uint64, off int64, exit bool) {
	c.amu.Lock()
	c.ends = append(c.ends, lineEnd{seq, off})
	if exit {
		c.exitSeq = seq
	}
	w := c.want
	if w != 0 && seq >= w {
		c.want = 0
	}
	c.amu.Unlock()
	if w != 0 && seq >= w {
		go c.Ack(w) //nolint:errcheck // not from the reading goroutine: a send may wait on the relay, which may wait on this reader
	}
}

func (c *Client) send(typ byte, seq uint64, hasSeq bool, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := WriteMsg(c.rw, typ, seq, hasSeq, payload); err != nil {
		return fmt.Errorf("relay: send %q: %w", typ, err)
	}
	return nil
}

// WriteLine sends one line for the agent's stdin (the relay adds the newline).
func (c *Client) WriteLine(b []byte) error { return c.send(MsgStdin, 0, false, b) }

// CloseStdin closes the agent's stdin.
func (c *Client) CloseStdin() error { return c.send(MsgCloseStdin, 0, false, nil) }

// Signal signals the agent's process group.
func (c *Client) Signal(sig syscall.Signal) error {
	return c.send(MsgSignal, 0, false, binary.BigEndian.AppendUint32(nil, uint32(sig)))
}

// Stop asks the relay to end the agent (stdin closed, SIGTERM after grace,
// SIGKILL after the relay's WaitDelay); the Exit message follows.
func (c *Client) Stop(grace time.Duration, reason string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return WriteJSON(c.rw, MsgStop, Stop{GraceMS: grace.Milliseconds(), Reason: reason})
}

// Ack tells the relay that everything up to seq is stored: the journal may
// rotate, and once the Exit's sequence is acknowledged the relay removes
// its files and ends.
func (c *Client) Ack(seq uint64) error {
	if !c.raw {
		return c.send(MsgAck, seq, true, nil)
	}
	c.amu.Lock()
	i := 0
	for i < len(c.ends) && c.ends[i].seq <= seq {
		i++
	}
	if seq <= c.acked || i == 0 {
		if seq > c.acked && len(c.ends) == 0 { // not read yet (else rotated away: acked before)
			c.want = max(c.want, seq)
		}
		c.amu.Unlock()
		return nil
	}
	e := c.ends[i-1]
	c.ends = c.ends[i:]
	if e.seq < seq && len(c.ends) == 0 { // the rest is not read yet
		c.want = max(c.want, seq)
	}
	c.acked = e.seq
	exit := c.exitSeq != 0 && e.seq >= c.exitSeq
	c.amu.Unlock()
	p := binary.BigEndian.AppendUint64(make([]byte, 0, 9), uint64(e.off))
	if exit {
		p = append(p, 1)
	} else {
		p = append(p, 0)
	}
	return c.send(MsgAck, e.seq, true, p)
}

// Detach says goodbye and closes; the agent keeps running.
func (c *Client) Detach() error {
	_ = c.send(MsgBye, 0, false, nil)
	return c.Close()
}

// Close closes the connection without a goodbye (as a crash would).
func (c *Client) Close() error {
	if c.journal != nil {
		c.journal.Close()
	}
	return c.rw.Close()
}
