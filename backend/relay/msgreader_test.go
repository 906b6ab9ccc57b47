package relay

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// msgReader reads what WriteMsg wrote, whatever the read sizes, and every
// payload it handed out stays intact while it reads on (they share slabs).
func TestMsgReaderKeepsPayloads(t *testing.T) {
	var wire bytes.Buffer
	var want []Msg
	for i := 0; i < 3000; i++ {
		n := (i * 37) % 700
		switch {
		case i%500 == 7:
			n = slabBytes/4 + i // its own array
		case i%300 == 11:
			n = slabBytes - 9 // a whole slab
		}
		p := bytes.Repeat([]byte{byte('a' + i%26)}, n)
		m := Msg{Type: MsgFrame, Seq: uint64(i + 1), Payload: p}
		if i%10 == 3 {
			m = Msg{Type: MsgExit, Payload: p}
		}
		want = append(want, m)
		if err := WriteMsg(&wire, m.Type, m.Seq, hasSeq(m.Type), p); err != nil {
			t.Fatal(err)
		}
	}
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(wire.Bytes()),
		"half":     iotest.HalfReader(bytes.NewReader(wire.Bytes())),
		"one byte": iotest.OneByteReader(bytes.NewReader(wire.Bytes())),
	} {
		got := readAll(t, name, newMsgReader(r))
		if len(got) != len(want) {
			t.Fatalf("%s: %d messages, want %d", name, len(got), len(want))
		}
		for i := range want {
			if got[i].Type != want[i].Type || got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Payload, want[i].Payload) {
				t.Fatalf("%s: message %d differs (%d bytes, want %d)", name, i, len(got[i].Payload), len(want[i].Payload))
			}
			if len(got[i].Payload) > 0 && cap(got[i].Payload) != len(got[i].Payload) {
				t.Fatalf("%s: message %d: an append to the payload would overwrite the next one", name, i)
			}
		}
	}
}

func TestMsgReaderTruncated(t *testing.T) {
	var wire bytes.Buffer
	_ = WriteMsg(&wire, MsgFrame, 1, true, []byte("hello"))
	b := wire.Bytes()
	for cut := 1; cut < len(b); cut++ {
		_, err := newMsgReader(bytes.NewReader(b[:cut])).next()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
	if _, err := newMsgReader(bytes.NewReader(nil)).next(); err != io.EOF {
		t.Fatalf("empty: %v", err)
	}
}
