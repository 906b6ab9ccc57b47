package relay

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// readUntil reads frames into got until one contains want; it returns the
// exit if one comes first.
func readUntil(t *testing.T, c *Client, got *[]Msg, want string) *Exit {
	t.Helper()
	for {
		m := next(t, c)
		switch m.Type {
		case MsgFrame:
			*got = append(*got, m)
			if strings.Contains(string(m.Payload), want) {
				return nil
			}
		case MsgExit:
			var ex Exit
			if err := m.JSON(&ex); err != nil {
				t.Fatal(err)
			}
			return &ex
		default:
			t.Fatalf("unexpected message %q", m.Type)
		}
	}
}

func checkOrder(t *testing.T, got []Msg, record string) {
	t.Helper()
	want, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i, m := range got {
		if m.Seq != uint64(i+1) {
			t.Fatalf("frame %d has seq %d", i, m.Seq)
		}
		b.Write(m.Payload)
		b.WriteByte('\n')
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("stored %d bytes differ from the agent's own record (%d bytes)", b.Len(), len(want))
	}
}

// The app dies mid-stream (no goodbye, nothing flushed): the next app takes
// the journal from its last stored sequence; every line exactly once, in
// order; the stream goes on live; a follow-up is answered; once the exit
// is stored the relay removes itself and its files.
func TestAppCrashMidStreamThenAdopt(t *testing.T) {
	record := filepath.Join(t.TempDir(), "agent.record")
	_, m := launch(t, fake{lines: 400, every: 2 * time.Millisecond, record: record}, nil)
	c := dial(t, m, 1)
	var stored []Msg
	for len(stored) < 100 {
		stored = append(stored, next(t, c))
	}
	c.Close() // the app is gone; the agent writes on
	time.Sleep(100 * time.Millisecond)

	c = dial(t, m, stored[len(stored)-1].Seq+1)
	if c.Welcome.AgentPID != m.AgentPID || c.Welcome.Exited {
		t.Fatalf("welcome %+v", c.Welcome)
	}
	if ex := readUntil(t, c, &stored, `"n":400`); ex != nil {
		t.Fatalf("exit before the last line: %+v", ex)
	}
	if err := c.WriteLine([]byte("follow-up")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, c, &stored, `follow-up`)
	checkOrder(t, stored, record)
	if err := c.WriteLine([]byte("exit")); err != nil {
		t.Fatal(err)
	}
	ex := readUntil(t, c, &stored, "\x00")
	if ex == nil || ex.Code != 0 || ex.Seq != uint64(len(stored)+1) {
		t.Fatalf("exit %+v after %d frames", ex, len(stored))
	}
	if err := c.Ack(ex.Seq); err != nil {
		t.Fatal(err)
	}
	waitGone(t, m.RelayPID)
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(m.Socket), "*"))
	if len(left) != 0 {
		t.Fatalf("files left behind: %v", left)
	}
}

// A question the agent asks while no app is attached is in the journal; the
// next app shows it and answers, and the agent proceeds.
func TestQuestionAskedWhileAppAwayIsAnsweredAfter(t *testing.T) {
	record := filepath.Join(t.TempDir(), "agent.record")
	_, m := launch(t, fake{lines: 3, ask: true, record: record}, nil)
	time.Sleep(200 * time.Millisecond) // nobody attached: the question waits in the journal
	c := dial(t, m, 1)
	var got []Msg
	if ex := readUntil(t, c, &got, `"ask"`); ex != nil {
		t.Fatalf("exit %+v", ex)
	}
	_ = c.Ack(got[len(got)-1].Seq)
	if err := c.WriteLine([]byte("allow")); err != nil {
		t.Fatal(err)
	}
	readUntil(t, c, &got, `"answered":"allow"`)
	checkOrder(t, got, record)
	_ = c.Stop(time.Second, "test done")
	if ex := readUntil(t, c, &got, "\x00"); ex == nil || !ex.Stopped || ex.Reason != "test done" {
		t.Fatalf("exit %+v", ex)
	}
}

// kill -9 of the relay: the app reads the journal file itself, keeps every
// frame already journaled, finds no exit record (so: interrupted), and ends
// the orphaned agent group.
func TestRelayKilledJournalKept(t *testing.T) {
	record := filepath.Join(t.TempDir(), "agent.record")
	_, m := launch(t, fake{lines: 50, ask: true, record: record}, nil)
	c := dial(t, m, 1)
	var got []Msg
	readUntil(t, c, &got, `"ask"`)
	c.Close()
	if err := syscall.Kill(m.RelayPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, m.RelayPID)
	var kept []Msg
	ex, err := ReadJournal(m.Journal, 1, func(r Record) error {
		kept = append(kept, Msg{Type: MsgFrame, Seq: r.Seq, Payload: r.Payload})
		return nil
	})
	if err != nil || ex != nil {
		t.Fatalf("exit %+v err %v", ex, err)
	}
	checkOrder(t, kept, record)
	if err := m.KillAgent(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, m.AgentPID)
}

// No app for IdleStop while the agent waits: the relay stops it with a
// reason; no app for IdleExit after that: the relay exits and keeps its
// files for the next app, which finds the exit in the journal.
func TestIdleStopThenRelayExitsKeepingJournal(t *testing.T) {
	record := filepath.Join(t.TempDir(), "agent.record")
	_, m := launch(t, fake{lines: 2, record: record}, func(s *Spec) {
		s.IdleStop, s.IdleExit = 300*time.Millisecond, 300*time.Millisecond
	})
	waitGone(t, m.RelayPID)
	if proc.Alive(m.AgentPID) {
		t.Fatal("agent still running")
	}
	metas, err := List(filepath.Dir(m.Socket))
	if err != nil || len(metas) != 1 || metas[0].Alive() {
		t.Fatalf("metas %+v err %v", metas, err)
	}
	var n int
	ex, err := ReadJournal(m.Journal, 1, func(Record) error { n++; return nil })
	wrote, _ := os.ReadFile(record) // a slow start (-race) may be stopped before it wrote both lines
	if err != nil || ex == nil || !ex.Stopped || !strings.Contains(ex.Reason, "no app") || n != bytes.Count(wrote, []byte("\n")) {
		t.Fatalf("exit %+v frames %d err %v", ex, n, err)
	}
	metas[0].Remove()
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(m.Socket), "*")); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
}

// Once everything is stored the journal is truncated (rotated) and the
// stream goes on from the same sequence.
func TestJournalRotatesAfterIngest(t *testing.T) {
	record := filepath.Join(t.TempDir(), "agent.record")
	_, m := launch(t, fake{lines: 200, record: record}, func(s *Spec) { s.RotateBytes = 1024 })
	c := dial(t, m, 1)
	var got []Msg
	readUntil(t, c, &got, `"n":200`)
	_ = c.Ack(got[len(got)-1].Seq)
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.Stat(m.Journal)
		if err == nil && st.Size() == rawHdr { // the header alone
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("journal not rotated: %v %v", st.Size(), err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = c.WriteLine([]byte("after"))
	readUntil(t, c, &got, `after`)
	checkOrder(t, got, record)
	c.Close()
	c = dial(t, m, got[len(got)-1].Seq+1) // a new app after the rotation
	if c.Welcome.First != 201 {
		t.Fatalf("welcome %+v", c.Welcome)
	}
	_ = c.Stop(0, "")
	var rest []Msg
	if ex := readUntil(t, c, &rest, "\x00"); ex == nil || len(rest) != 0 {
		t.Fatalf("exit %+v rest %d", ex, len(rest))
	}
}

func TestBadTokenRefusedAndSocketPrivate(t *testing.T) {
	_, m := launch(t, fake{lines: 1}, nil)
	st, err := os.Stat(m.Socket)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v err %v", st.Mode(), err)
	}
	conn, err := net.Dial("unix", m.Socket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Attach(conn, "wrong-token-wrong-token", 1); !errors.Is(err, ErrRefused) {
		t.Fatalf("got %v", err)
	}
	c := dial(t, m, 1)
	_ = c.Stop(0, "")
}

// The protocol over stdio (as `ssh host jean-claude relay dial SOCK` carries
// it): DialStdio bridges two pipes to the socket.
func TestDialStdioBridge(t *testing.T) {
	_, m := launch(t, fake{lines: 5}, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { _ = DialStdio(m.Socket, inR, outW); outW.Close() }()
	c, err := Attach(pipeRWC{outR, inW}, m.Token, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []Msg
	readUntil(t, c, &got, `"n":5`)
	if len(got) != 3 || got[0].Seq != 3 {
		t.Fatalf("got %d frames from %d", len(got), got[0].Seq)
	}
	_ = c.Stop(0, "")
	readUntil(t, c, &got, "\x00")
	_ = c.Detach()
}

type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

func TestProtocolRoundTrip(t *testing.T) {
	var b bytes.Buffer
	_ = WriteMsg(&b, MsgFrame, 42, true, []byte(`{"a":1}`))
	_ = WriteJSON(&b, MsgStop, Stop{GraceMS: 5})
	m, err := ReadMsg(&b)
	if err != nil || m.Type != MsgFrame || m.Seq != 42 || string(m.Payload) != `{"a":1}` {
		t.Fatalf("%+v %v", m, err)
	}
	m, err = ReadMsg(&b)
	var st Stop
	if err != nil || m.JSON(&st) != nil || st.GraceMS != 5 {
		t.Fatalf("%+v %v", m, err)
	}
	if _, err := ReadMsg(&b); err != io.EOF {
		t.Fatal(err)
	}
	var j bytes.Buffer
	j.Write(encodeRecord(recFrame, 7, []byte("x")))
	j.Write(encodeRecord(recFrame, 8, []byte("yy"))[:10]) // torn
	p := filepath.Join(t.TempDir(), "j")
	_ = os.WriteFile(p, j.Bytes(), 0o600)
	var seqs []string
	_, err = ReadJournal(p, 1, func(r Record) error { seqs = append(seqs, fmt.Sprint(r.Seq)); return nil })
	if err != nil || strings.Join(seqs, ",") != "7" {
		t.Fatalf("%v %v", seqs, err)
	}
}
