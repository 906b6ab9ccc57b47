package relay

import (
	"net"
	"syscall"
	"testing"
	"time"
)

// An app that acks the agent's end as soon as it reads it (everything
// before it was stored already) ends the relay: the ack says the end is
// stored, whenever it arrives after the end was recorded. Before, an ack
// taken for an ordinary one left the app with no other to send (it had
// acked the end), and the relay outlived its task with its files
// (TestFloodBoundedAndStoppable/relay: "relays left: … alive true").
func TestExitAckedAsSoonAsSentEndsRelay(t *testing.T) {
	j := tempJournal(t)
	s := &server{j: j, finish: make(chan string, 4), spec: Spec{RotateBytes: 1 << 20}}
	relaySide, appSide := net.Pipe()
	defer appSide.Close()
	quit := make(chan struct{})
	defer close(quit)
	go s.sendJournal(relaySide, false, quit)
	feed(t, j, []byte("{\"n\":1}\n"))
	// reap records the end; nothing else of reap runs in this test, as
	// when the app's ack overtakes it.
	if err := j.setExit(&Exit{Stopped: true}); err != nil {
		t.Fatal(err)
	}
	app := attachPipe(t, appSide)
	if m := next(t, app); m.Type != MsgFrame || m.Seq != 1 {
		t.Fatalf("got %q seq %d, want frame 1", m.Type, m.Seq)
	}
	m := next(t, app)
	var ex Exit
	if m.Type != MsgExit || m.JSON(&ex) != nil || ex.Seq != 2 {
		t.Fatalf("got %q %s, want the exit at 2", m.Type, m.Payload)
	}
	go func() { _ = app.Ack(ex.Seq) }() // net.Pipe has no buffer
	am, err := newMsgReader(relaySide).next()
	if err != nil || am.Type != MsgAck || len(am.Payload) < 9 {
		t.Fatalf("ack: %q %v", am.Type, err)
	}
	s.onAck(am.Seq, int64(be64(am.Payload)), am.Payload[8]&1 != 0)
	select {
	case why := <-s.finish:
		if why != finishTaken {
			t.Fatalf("relay ends for %q", why)
		}
	default:
		t.Fatal("the exit was acked but the relay does not end")
	}
}

// A relay told to end (SIGTERM) while its attached app does not read (its
// store stuck: the socket full) lets the app go after a while and ends,
// instead of waiting for it.
func TestRelayEndsWhileAppDoesNotRead(t *testing.T) {
	_, m := launch(t, fake{lines: 300000}, func(s *Spec) {
		s.AttachedBytes = 1 << 40 // only the socket holds the sender back
		s.WaitDelay = 300 * time.Millisecond
	})
	c, err := net.Dial("unix", m.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := WriteJSON(c, MsgHello, Hello{Version: Version, Token: m.Token, From: 1}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the agent floods; nothing is read: the socket fills
	if err := syscall.Kill(m.RelayPID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, m.RelayPID)
}
