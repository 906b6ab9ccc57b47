package relay

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"testing"
	"testing/iotest"
	"time"
)

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
		mr := newMsgReader(r)
		var got []Msg
		for {
			m, err := mr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: message %d: %v", name, len(got), err)
			}
			got = append(got, m)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d messages, want %d", name, len(got), len(want))
		}
		for i := range want {
			if got[i].Type != want[i].Type || got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Payload, want[i].Payload) {
				t.Fatalf("%s: message %d differs: %q seq %d (%d bytes), want %q seq %d (%d bytes)", name, i,
					got[i].Type, got[i].Seq, len(got[i].Payload), want[i].Type, want[i].Seq, len(want[i].Payload))
			}
		}
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

// A client of protocol version 1 (an older app) gets one Frame message per
// line, and the Exit, as before Records messages.
func TestVersion1ClientGetsFrames(t *testing.T) {
	_, m := launch(t, fake{lines: 50}, nil)
	conn, err := net.DialTimeout("unix", m.Socket, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	if err := WriteJSON(conn, MsgHello, Hello{Version: 1, Token: m.Token, From: 1}); err != nil {
		t.Fatal(err)
	}
	var hdr [5]byte
	var frames int
	for {
		if _, err := io.ReadFull(conn, hdr[:]); err != nil {
			t.Fatalf("after %d frames: %v", frames, err)
		}
		p := make([]byte, binary.BigEndian.Uint32(hdr[1:]))
		if _, err := io.ReadFull(conn, p); err != nil {
			t.Fatal(err)
		}
		switch hdr[0] {
		case MsgWelcome:
			continue
		case MsgFrame:
			frames++
			if got, want := string(p[8:]), fmt.Sprintf(`{"n":%d}`, frames); binary.BigEndian.Uint64(p) != uint64(frames) || got != want {
				t.Fatalf("frame %d: seq %d %q, want %q", frames, binary.BigEndian.Uint64(p), got, want)
			}
			if frames == 50 {
				_, _ = conn.Write([]byte{MsgStdin, 0, 0, 0, 4, 'e', 'x', 'i', 't'})
			}
		case MsgExit:
			if frames != 50 {
				t.Fatalf("exit after %d frames", frames)
			}
			return
		default:
			t.Fatalf("message %q to a version 1 client", hdr[0])
		}
	}
}

// The in-memory tail uses its arrays again once no sender reads them, and
// never one a sender still reads: a view handed out keeps its bytes while
// the journal writes on through more than two chunks.
func TestJournalTailChunksReusedWhenUnpinned(t *testing.T) {
	j, err := openJournal(filepath.Join(t.TempDir(), "j"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	line := bytes.Repeat([]byte("x"), 1000)
	write := func(n int) {
		for i := 0; i < n; i++ {
			if err := j.appendBatch([]pendingRec{{kind: recFrame, line: line}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(10)
	gen, size, _ := j.at()
	r := chunkReader{f: j.f, j: j, gen: gen}
	if _, _, err := r.read(0, size); err != nil || !r.mine {
		t.Fatalf("first record not from memory (%v)", err)
	}
	pinned, view := r.pin, bytes.Clone(r.buf)
	perChunk := TailBytes / (recHdr + len(line))
	write(3 * perChunk) // three chunks more: the pinned one would have been taken again
	if j.tail.c == pinned || j.prev.c == pinned || j.spare == pinned {
		t.Fatal("a pinned chunk went back into use")
	}
	if !bytes.Equal(r.buf, view) {
		t.Fatal("the bytes of a pinned view changed")
	}
	r.release()
	if j.spare != pinned {
		t.Fatal("a chunk let go of was not kept for reuse")
	}
	known := map[*memChunk]bool{j.tail.c: true, j.prev.c: true, j.spare: true}
	write(perChunk + 1)
	if !known[j.tail.c] {
		t.Fatal("a new array was taken while one was spare")
	}
}

// The sender gives an app every record from its from on, in order and
// intact, as Records messages (version 2) or one message each (version
// 1): from the file for what is no longer in memory (a record longer than
// the read-ahead included), then from memory, then live as more is
// written.
func TestSendJournalRecordsFromFileMemoryAndLive(t *testing.T) {
	for _, records := range []bool{true, false} {
		j, err := openJournal(filepath.Join(t.TempDir(), "j"))
		if err != nil {
			t.Fatal(err)
		}
		line := func(i int) []byte {
			if i == 3000 {
				return bytes.Repeat([]byte("h"), readAhead+TailBytes) // its own write, kept in no chunk
			}
			return fmt.Appendf(nil, `{"i":%d,"pad":"%s"}`, i, bytes.Repeat([]byte("x"), 180+i%300))
		}
		write := func(from, to int) error {
			for i := from; i <= to; i += 100 {
				var recs []pendingRec
				for k := i; k < i+100 && k <= to; k++ {
					recs = append(recs, pendingRec{kind: recFrame, line: line(k)})
				}
				if err := j.appendBatch(recs); err != nil {
					return err
				}
			}
			return nil
		}
		const first, n = 7, 60000 // ~20 MiB before the app comes: more than the tail holds
		if err := write(1, n); err != nil {
			t.Fatal(err)
		}
		app, relay := net.Pipe()
		quit := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			(&server{j: j}).sendJournal(relay, first, records, quit)
		}()
		live := make(chan error, 1)
		go func() { live <- write(n+1, n+5000) }() // while the app reads
		mr := newMsgReader(app)
		_ = app.SetReadDeadline(time.Now().Add(30 * time.Second))
		for i := first; i <= n+5000; i++ {
			m, err := mr.next()
			if err != nil {
				t.Fatalf("records %v: frame %d: %v", records, i, err)
			}
			if m.Type != MsgFrame || m.Seq != uint64(i) || !bytes.Equal(m.Payload, line(i)) {
				t.Fatalf("records %v: frame %d: got %q seq %d (%d bytes)", records, i, m.Type, m.Seq, len(m.Payload))
			}
		}
		if err := <-live; err != nil {
			t.Fatal(err)
		}
		close(quit)
		app.Close()
		<-done
		j.close()
	}
}
