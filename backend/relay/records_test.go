package relay

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"net"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// encodeRecord is a record as a relay of protocol 2 journaled and sent it
// (records.go); this binary's relay no longer writes any.
func encodeRecord(kind byte, seq uint64, payload []byte) []byte {
	buf := binary.BigEndian.AppendUint32(make([]byte, 0, recHdr+len(payload)), uint32(len(payload)))
	buf = append(buf, 0, 0, 0, 0, kind)
	buf = binary.BigEndian.AppendUint64(buf, seq)
	buf = append(buf, payload...)
	binary.BigEndian.PutUint32(buf[4:8], crc32.Checksum(buf[8:], crcTable))
	return buf
}

// A client reads the records of Records messages (protocol version 2) as
// the Frame, TooLong and Exit messages they stand for, between plain
// messages, whatever the read sizes; a record of an unknown kind is
// skipped, and every payload handed out stays intact.
func TestMsgReaderRecords(t *testing.T) {
	var wire bytes.Buffer
	var want []Msg
	seq := uint64(0)
	rec := func(kind byte, p []byte) []byte {
		seq++
		switch kind {
		case recFrame:
			want = append(want, Msg{Type: MsgFrame, Seq: seq, Payload: p})
		case recTooLong:
			want = append(want, Msg{Type: MsgTooLong, Seq: seq, Payload: p})
		case recExit:
			want = append(want, Msg{Type: MsgExit, Payload: p})
		}
		return encodeRecord(kind, seq, p)
	}
	for i := 0; i < 400; i++ {
		var run []byte
		for k := 0; k < i%9; k++ {
			n := (i*37 + k*11) % 700
			if (i+k)%97 == 5 {
				n = slabBytes/4 + i // its own array
			}
			kind := recFrame
			switch (i + k) % 13 {
			case 3:
				kind = recTooLong
			case 7:
				kind = 'Z' // unknown: skipped
			}
			run = append(run, rec(kind, bytes.Repeat([]byte{byte('a' + i%26)}, n))...)
		}
		_ = WriteMsg(&wire, MsgRecords, 0, false, run)
		if i%50 == 9 { // a plain message between Records messages
			_ = WriteMsg(&wire, MsgFrame, 1000000+uint64(i), true, []byte("plain"))
			want = append(want, Msg{Type: MsgFrame, Seq: 1000000 + uint64(i), Payload: []byte("plain")})
		}
	}
	ex, _ := json.Marshal(Exit{Seq: seq + 1, Code: 3})
	_ = WriteMsg(&wire, MsgRecords, 0, false, rec(recExit, ex))
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(wire.Bytes()),
		"half":     iotest.HalfReader(bytes.NewReader(wire.Bytes())),
		"one byte": iotest.OneByteReader(bytes.NewReader(wire.Bytes())),
	} {
		sameLines(t, name, readAll(t, name, newMsgReader(r)), want)
	}
}

// A Records message whose last record runs past its end, or cut by the
// end of the stream, is an error, not a frame.
func TestMsgReaderRecordsCut(t *testing.T) {
	r := encodeRecord(recFrame, 1, []byte("hello"))
	var wire bytes.Buffer
	_ = WriteMsg(&wire, MsgRecords, 0, false, r[:len(r)-1])
	_, err := newMsgReader(bytes.NewReader(wire.Bytes())).next()
	if !errors.Is(err, ErrBadMessage) {
		t.Fatalf("record past the message's end: %v", err)
	}
	wire.Reset()
	_ = WriteMsg(&wire, MsgRecords, 0, false, r)
	b := wire.Bytes()
	for cut := 6; cut < len(b); cut++ {
		if _, err := newMsgReader(bytes.NewReader(b[:cut])).next(); !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrBadMessage) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
}

// A client of an older protocol (an app of an older binary) is told why
// and let go: this relay sends the journal's bytes, which it cannot read.
func TestOlderClientRefused(t *testing.T) {
	_, m := launch(t, fake{lines: 5}, nil)
	for _, v := range []int{1, 2} {
		conn, err := net.DialTimeout("unix", m.Socket, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
		if err := WriteJSON(conn, MsgHello, Hello{Version: v, Token: m.Token, From: 1}); err != nil {
			t.Fatal(err)
		}
		msg, err := ReadMsg(conn)
		var e ErrorMsg
		if err != nil || msg.Type != MsgError || msg.JSON(&e) != nil || !strings.Contains(e.Error, "update the app") {
			t.Fatalf("version %d: got %q %s (%v), want an error", v, msg.Type, msg.Payload, err)
		}
		conn.Close()
	}
	c := dial(t, m, 1) // the relay serves the current app all the same
	for i := 1; i <= 5; i++ {
		if msg := next(t, c); msg.Type != MsgFrame || msg.Seq != uint64(i) {
			t.Fatalf("frame %d: %q seq %d", i, msg.Type, msg.Seq)
		}
	}
}
