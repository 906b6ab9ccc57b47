package relay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

func be64(b []byte) uint64 { return binary.BigEndian.Uint64(b) }

// feed moves b into the journal through a pipe, as the read loop moves
// the agent's stdout.
func feed(t testing.TB, j *journal, b []byte) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		_, _ = w.Write(b)
		w.Close()
	}()
	rc, err := r.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	for {
		var n int64
		var ferr error
		err := rc.Read(func(fd uintptr) bool {
			n, ferr = j.fill(int(fd))
			return !errors.Is(ferr, unix.EAGAIN)
		})
		if err == nil {
			err = ferr
		}
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// attachPipe is a version 3 client on one end of a connection whose
// other end runs sendJournal (no Hello: the test plays the relay's side).
func attachPipe(t testing.TB, c net.Conn) *Client {
	cl := &Client{rw: c, mr: newMsgReader(c), raw: true, from: 1, Welcome: Welcome{Version: Version}}
	cl.mr.frameEnd = cl.lineRead
	return cl
}

// agentOutput is stdout as an agent may write it: JSON lines of varied
// length, blank lines, "\r\n" endings, a line over the limit, one of
// exactly the limit, and lines longer than a Data message.
func agentOutput(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		switch {
		case i%997 == 0:
			b.WriteString("\n  \n")
		case i%1009 == 0:
			fmt.Fprintf(&b, "{\"i\":%d}\r\n", i)
		case i == n/2:
			b.Write(bytes.Repeat([]byte("z"), agent.MaxFrameBytes+5))
			b.WriteByte('\n')
		case i == n/3:
			b.Write(bytes.Repeat([]byte("y"), agent.MaxFrameBytes+1))
			b.WriteByte('\n')
		case i == n/4:
			b.Write(bytes.Repeat([]byte("w"), maxRun+100))
			b.WriteByte('\n')
		default:
			fmt.Fprintf(&b, "{\"i\":%d,\"pad\":\"%s\"}\n", i, strings.Repeat("x", 50+i%400))
		}
	}
	return b.Bytes()
}

// wantLines is what the runtime's own reader makes of out: the frames
// (too long: the first KiB) in order, as a pipe gives them to the app.
func wantLines(t testing.TB, out []byte) []Msg {
	var want []Msg
	seq := uint64(1)
	for line, err := range agent.ReadLines(bytes.NewReader(out), agent.MaxFrameBytes) {
		typ := MsgFrame
		if errors.Is(err, agent.ErrFrameTooLong) {
			typ = MsgTooLong
		} else if err != nil {
			t.Fatal(err)
		}
		want = append(want, Msg{Type: typ, Seq: seq, Payload: line})
		seq++
	}
	return want
}

// readAll reads messages until the end of the stream.
func readAll(t testing.TB, name string, mr *msgReader) []Msg {
	t.Helper()
	var got []Msg
	for {
		m, err := mr.next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatalf("%s: message %d: %v", name, len(got), err)
		}
		got = append(got, m)
	}
}

// tempJournal is a journal in a temporary directory, closed at the end of
// the test.
func tempJournal(t testing.TB) *journal {
	t.Helper()
	j, err := openJournal(filepath.Join(t.TempDir(), "j"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.close)
	return j
}

func sameLines(t testing.TB, name string, got, want []Msg) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d lines, want %d", name, len(got), len(want))
	}
	for i := range want {
		if got[i].Type != want[i].Type || got[i].Seq != want[i].Seq || !bytes.Equal(got[i].Payload, want[i].Payload) {
			t.Fatalf("%s: line %d: %q seq %d (%d bytes), want %q seq %d (%d bytes)", name, i,
				got[i].Type, got[i].Seq, len(got[i].Payload), want[i].Type, want[i].Seq, len(want[i].Payload))
		}
	}
}

// The lines a client numbers from the journal's bytes are the lines the
// runtime reads from a pipe, whatever the bytes and however they are cut
// into Data messages and reads: blank lines skipped, "\r\n" trimmed, a
// line over the limit one too-long frame with its first KiB.
func TestLinesAsAPipeGivesThem(t *testing.T) {
	out := agentOutput(3000)
	want := wantLines(t, out)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		var wire bytes.Buffer
		_ = WriteMsg(&wire, MsgBase, 0, false, binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 1), 0))
		for rest := out; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(1<<uint(4+round%14)))
			_ = WriteMsg(&wire, MsgData, 0, false, rest[:n])
			rest = rest[n:]
		}
		var r io.Reader = bytes.NewReader(wire.Bytes())
		if round%3 == 1 {
			r = iotest.HalfReader(r)
		}
		name := fmt.Sprintf("round %d", round)
		sameLines(t, name, readAll(t, name, newMsgReader(r)), want)
	}
}

// The relay sends an app the journal from its start, as it is in the file
// and live as more comes, over a unix socket (sendfile) and a net.Pipe
// alike, from a journal written without splice(2), and to an app that
// reads the file itself (told how far it goes); the app reads every line
// as a pipe would give it, and the agent's end after the last
// line (one without a newline) with the sequence after it.
func TestSendJournalFileAndLive(t *testing.T) {
	out := agentOutput(4000)
	last := []byte(`{"last":true}`) // no newline: the agent ended after it
	want := append(wantLines(t, out), Msg{Type: MsgFrame, Payload: last})
	want[len(want)-1].Seq = uint64(len(want))
	for _, kind := range []string{"unix", "pipe", "copying", "local"} {
		j := tempJournal(t)
		j.copying = kind == "copying" // a file system that refuses splice(2)
		half := len(out) / 2
		feed(t, j, out[:half]) // in the file before the app comes
		var app, relay net.Conn
		if kind != "pipe" {
			app, relay = socketPair(t)
		} else {
			app, relay = net.Pipe()
		}
		quit, done := make(chan struct{}), make(chan struct{})
		local := kind == "local" // the app reads the file; the relay says how far
		go func() {
			defer close(done)
			(&server{j: j}).sendJournal(relay, local, quit)
		}()
		go func() { // live, while the app reads
			feed(t, j, out[half:])
			feed(t, j, last)
			_ = j.setExit(&Exit{Code: 3})
		}()
		c := attachPipe(t, app)
		if local {
			f, err := os.Open(j.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c.mr.fr = &fileReader{f: f}
		}
		_ = app.SetReadDeadline(time.Now().Add(30 * time.Second))
		var got []Msg
		for {
			m := next(t, c)
			if m.Type == MsgExit {
				var ex Exit
				if m.JSON(&ex) != nil || ex.Seq != uint64(len(want)+1) || ex.Code != 3 {
					t.Fatalf("%s: exit %s, want seq %d", kind, m.Payload, len(want)+1)
				}
				break
			}
			got = append(got, Msg{Type: m.Type, Seq: m.Seq, Payload: bytes.Clone(m.Payload)})
		}
		sameLines(t, kind, got, want)
		close(quit)
		app.Close()
		<-done
	}
}

func socketPair(t testing.TB) (net.Conn, net.Conn) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0) // no SOCK_CLOEXEC off Linux
	if err != nil {
		t.Fatal(err)
	}
	unix.CloseOnExec(fds[0])
	unix.CloseOnExec(fds[1])
	conn := func(fd int) net.Conn {
		f := os.NewFile(uintptr(fd), "socket")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	return conn(fds[0]), conn(fds[1])
}

// The journal of a relay that died is read as the app would have read it
// live: from its header's sequence, the last line kept only if the agent
// ended (else it was cut), and the end with the sequence after it.
func TestReadJournalOfDeadRelay(t *testing.T) {
	out := agentOutput(2000)
	want := wantLines(t, out)
	for _, ended := range []bool{false, true} {
		j := tempJournal(t)
		path := j.path
		feed(t, j, out)
		feed(t, j, []byte(`{"cut":`))
		if ended {
			if err := j.setExit(&Exit{Code: 1}); err != nil {
				t.Fatal(err)
			}
		}
		j.close()
		var got []Msg
		ex, err := ReadJournal(path, 5, func(r Record) error {
			typ := MsgFrame
			if r.Kind == recTooLong {
				typ = MsgTooLong
			}
			got = append(got, Msg{Type: typ, Seq: r.Seq, Payload: r.Payload})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		w := want[4:]
		if ended {
			w = append(w[:len(w):len(w)], Msg{Type: MsgFrame, Seq: uint64(len(want) + 1), Payload: []byte(`{"cut":`)})
			if ex == nil || ex.Code != 1 || ex.Seq != uint64(len(want)+2) {
				t.Fatalf("exit %+v, want code 1 at %d", ex, len(want)+2)
			}
		} else if ex != nil {
			t.Fatalf("exit %+v of an agent that did not end", ex)
		}
		sameLines(t, fmt.Sprintf("ended %v", ended), got, w)
	}
}

// Once everything in the file is stored and it is over the limit, an ack
// rotates it: the file is cut back to its header, which says where the
// lines go on, and an app attaching then (or reading the file) numbers the
// lines after it as before.
func TestRotationKeepsTheNumbering(t *testing.T) {
	j := tempJournal(t)
	path := j.path
	var out []byte
	for i := 1; i <= 100; i++ {
		out = fmt.Appendf(out, "{\"i\":%d}\n", i)
	}
	feed(t, j, out)
	if j.ack(100, int64(len(out)), false, 64) {
		t.Fatal("an ack of lines taken for the end")
	}
	if st, _ := os.Stat(path); st.Size() != rawHdr || j.firstSeq() != 101 {
		t.Fatalf("after the ack: %d bytes, first %d; want the header alone and 101", st.Size(), j.firstSeq())
	}
	feed(t, j, []byte("{\"i\":101}\n{\"i\":102}\n"))
	var seqs []uint64
	if _, err := ReadJournal(path, 1, func(r Record) error { seqs = append(seqs, r.Seq); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seqs) != "[101 102]" {
		t.Fatalf("read after the rotation: %v", seqs)
	}
	app, relay := net.Pipe()
	quit := make(chan struct{})
	defer close(quit)
	go (&server{j: j}).sendJournal(relay, false, quit)
	c := attachPipe(t, app)
	for _, want := range []string{`{"i":101}`, `{"i":102}`} {
		if m := next(t, c); string(m.Payload) != want {
			t.Fatalf("got %s, want %s", m.Payload, want)
		}
	}
	app.Close()
}

// A local app (reading the file) attached while the file rotates goes on
// reading at the right place: the relay tells it the new base before it
// says how far the bytes after the rotation go.
func TestLocalAppFollowsRotation(t *testing.T) {
	j := tempJournal(t)
	f, err := os.Open(j.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	app, relay := socketPair(t)
	defer app.Close()
	quit := make(chan struct{})
	defer close(quit)
	go (&server{j: j}).sendJournal(relay, true, quit)
	c := attachPipe(t, app)
	c.mr.fr = &fileReader{f: f}
	_ = app.SetReadDeadline(time.Now().Add(10 * time.Second))
	var total int64
	for round := 0; round < 3; round++ {
		var out []byte
		for i := 1; i <= 100; i++ {
			out = fmt.Appendf(out, "{\"r\":%d,\"i\":%d}\n", round, i)
		}
		feed(t, j, out)
		var last Msg
		for i := 1; i <= 100; i++ {
			last = next(t, c)
			if want := fmt.Sprintf(`{"r":%d,"i":%d}`, round, i); string(last.Payload) != want || last.Seq != uint64(round*100+i) {
				t.Fatalf("round %d: got %s seq %d, want %s seq %d", round, last.Payload, last.Seq, want, round*100+i)
			}
		}
		total += int64(len(out))
		j.ack(last.Seq, total, false, 64) // the app stored it all: the file rotates
		if j.firstSeq() != last.Seq+1 {
			t.Fatalf("round %d: not rotated (first %d)", round, j.firstSeq())
		}
	}
}

// A long line read from Data messages costs the client about twice its
// size, as a pipe read by the runtime does (agent.ReadLines): the slabs
// it arrives in, then the line joined once at its size. Growing one slice
// by append cost up to four times.
func TestLongLineReadOnceJoined(t *testing.T) {
	const size = 20 << 20
	line := bytes.Repeat([]byte("x"), size)
	var wire bytes.Buffer
	_ = WriteMsg(&wire, MsgBase, 0, false, make([]byte, 16))
	for rest := append(line, '\n'); len(rest) > 0; {
		n := min(len(rest), maxRun)
		_ = WriteMsg(&wire, MsgData, 0, false, rest[:n])
		rest = rest[n:]
	}
	mr := newMsgReader(bytes.NewReader(wire.Bytes()))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	m, err := mr.next()
	runtime.ReadMemStats(&after)
	if err != nil || m.Type != MsgFrame || len(m.Payload) != size {
		t.Fatalf("got %q of %d bytes (%v)", m.Type, len(m.Payload), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 5*size/2 {
		t.Fatalf("reading a %d MiB line allocated %.1f× its size, want at most 2.5×", size>>20, float64(alloc)/size)
	}
}

// A journal that cannot be written (a full disk; here the file size limit,
// RLIMIT_FSIZE) holds the agent on its pipe and loses nothing: once the
// file can be written again, the relay goes on by itself and every byte
// the agent wrote is in the journal, in order; the relay's log says when
// it stopped and when it went on. Before, the read loop ended at the first
// failed write and the agent stayed blocked until it was stopped.
func TestJournalWriteFailureHoldsThenResumes(t *testing.T) {
	var out []byte
	for i := 0; len(out) < 300<<10; i++ {
		out = fmt.Appendf(out, "{\"i\":%d,\"pad\":\"%s\"}\n", i, strings.Repeat("x", 100+i%200))
	}
	defer func(d time.Duration) { retryWrite = d }(retryWrite)
	retryWrite = 20 * time.Millisecond
	signal.Ignore(syscall.SIGXFSZ) // a write past the limit fails (EFBIG) instead of killing the test
	defer signal.Reset(syscall.SIGXFSZ)
	for _, copying := range []bool{false, true} {
		j := tempJournal(t)
		path := j.path
		j.copying = copying
		s := &server{j: j, errT: proc.NewTail(4096), spec: Spec{MaxUnacked: 1 << 40, AttachedBytes: 1 << 40}, readStop: make(chan struct{})}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		stop, err := newStopper()
		if err != nil {
			t.Fatal(err)
		}
		var old unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
		lim := old
		lim.Cur = 64 << 10
		if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &lim); err != nil {
			t.Fatal(err)
		}
		restored := false
		restore := func() {
			if !restored {
				restored = true
				_ = unix.Setrlimit(unix.RLIMIT_FSIZE, &old)
			}
		}
		done := make(chan struct{})
		go func() { defer close(done); s.readLoop(r, stop.r) }()
		wrote := make(chan error, 1)
		go func() { _, err := w.Write(out); w.Close(); wrote <- err }()
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(s.errT.String(), "journal write") {
			if time.Now().After(deadline) {
				restore()
				t.Fatalf("copying %v: no write failure in the log: %q", copying, s.errT.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // a few retries, still failing
		st, _ := os.Stat(path)
		select {
		case <-wrote:
			restore()
			t.Fatalf("copying %v: the agent was not held (all %d bytes written, the file at %d)", copying, len(out), st.Size())
		default:
		}
		restore() // space again
		select {
		case err := <-wrote:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			w.Close()
			t.Fatalf("copying %v: the agent is still held with space again: the relay did not go on", copying)
		}
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("copying %v: the relay did not go on", copying)
		}
		got, _ := os.ReadFile(path)
		if st.Size() > 64<<10 || !bytes.Equal(got[rawHdr:], out) {
			t.Fatalf("copying %v: held at %d bytes; journal %d bytes, want the %d written, in order", copying, st.Size(), len(got)-rawHdr, len(out))
		}
		if log := s.errT.String(); !strings.Contains(log, "journal writable again") {
			t.Fatalf("copying %v: log %q", copying, log)
		}
		stop.close()
		r.Close()
	}
}
