package relay

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// server is one running relay.
type server struct {
	spec Spec
	j    *journal
	ln   net.Listener
	cmd  *exec.Cmd
	errT *proc.Tail
	meta Meta
	tmp  *agent.PrivateDir // the agent's own TMPDIR (agent.WithTmpDir)

	stdinMu     sync.Mutex
	stdin       io.WriteCloser
	stdinClosed bool

	mu         sync.Mutex
	client     net.Conn // the attached app, if any
	lastActive time.Time
	stopping   bool
	stopReason string

	exited   chan struct{} // agent reaped and its end recorded
	readStop chan struct{} // the agent's stdout is closed: stop waiting for room
	finish   chan string   // why the relay ends
}

// Serve runs a relay for spec until its work is done: the agent ended and an
// app stored everything (files removed), or nobody came for the agent's end
// (files kept for the next app). ready is called once the socket and the
// meta file exist.
func Serve(ctx context.Context, spec Spec, ready func(Meta)) error {
	spec.defaults()
	if err := spec.check(); err != nil {
		return err
	}
	if err := os.MkdirAll(spec.Dir, 0o700); err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	s := &server{spec: spec, errT: proc.NewTail(16 << 10), exited: make(chan struct{}), readStop: make(chan struct{}), finish: make(chan string, 4), lastActive: time.Now()}
	j, err := openJournal(journalPath(spec.Dir, spec.ID))
	if err != nil {
		return err
	}
	s.j = j
	defer j.close()
	if err := s.listen(); err != nil {
		return err
	}
	defer s.ln.Close()
	if err := s.startAgent(); err != nil {
		s.removeRunFiles()
		return err // the launcher reads why in the log, then removes it
	}
	s.meta = Meta{ID: spec.ID, TaskID: spec.TaskID, Role: spec.Role, Name: spec.Name, RelayPID: os.Getpid(),
		AgentPID: s.cmd.Process.Pid, Socket: sockPath(spec.Dir, spec.ID), Journal: j.path,
		Token: spec.Token, Started: time.Now().UTC(), Extra: spec.Extra}
	if err := writeMeta(spec.Dir, s.meta); err != nil {
		_ = proc.KillGroup(s.cmd, syscall.SIGKILL)
		s.removeFiles()
		return err
	}
	if ready != nil {
		ready(s.meta)
	}
	go s.accept()
	go s.watchIdle(ctx)
	select {
	case why := <-s.finish:
		if why == finishTaken {
			s.removeFiles()
		}
	case <-ctx.Done():
		s.stop(0, "relay ended")
		s.waitExited()
	}
	s.dropClient(nil)
	return nil
}

// waitExited waits until the agent's end is recorded. The read loop sends
// new output to the attached app itself, so an app that does not read
// (its store stuck) holds up the rest of the agent's output and its end,
// as a pipe would; a relay told to end lets such an app go after a while
// (its connection closed: the blocked write fails) rather than wait for it.
func (s *server) waitExited() {
	select {
	case <-s.exited:
		return
	case <-time.After(3*s.spec.WaitDelay + time.Second):
	}
	s.dropClient(nil)
	<-s.exited
}

// Reasons the relay ends.
const (
	finishTaken = "taken"  // an app stored the exit: remove everything
	finishIdle  = "nobody" // the agent ended and no app came: keep the files
)

func (s *server) removeFiles() { removeFiles(s.spec.Dir, s.spec.ID) }

// removeRunFiles removes every file but the log.
func (s *server) removeRunFiles() { removeAll(runFiles(s.spec.Dir, s.spec.ID)...) }

func (s *server) listen() error {
	p := sockPath(s.spec.Dir, s.spec.ID)
	_ = os.Remove(p)
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", p)
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("relay: listen: %w", err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("relay: chmod socket: %w", err)
	}
	s.ln = ln
	return nil
}

func (s *server) startAgent() (err error) {
	sp := s.spec
	// The agent's own TMPDIR (agent.WithTmpDir). On a host no app sweeps
	// what a relay killed there left: each relay does, as the app does
	// at its start.
	_, _ = agent.SweepPrivateDirs(24 * time.Hour)
	tmp, err := agent.NewPrivateDir("tmp")
	if err != nil {
		return fmt.Errorf("%s: %w", sp.Name, err)
	}
	s.tmp = tmp
	defer func() {
		if err != nil {
			tmp.Remove()
		}
	}()
	cmd := exec.Command(sp.Path, sp.Args...)
	cmd.Dir, cmd.Env, cmd.Stderr = sp.WorkDir, agent.WithTmpDir(sp.Env, tmp.Path), s.errT
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if sp.Stdin {
		w, err := cmd.StdinPipe()
		if err != nil {
			return fmt.Errorf("relay: stdin: %w", err)
		}
		s.stdin = w
	} else if sp.StdinData != nil {
		cmd.Stdin = bytes.NewReader(sp.StdinData)
	}
	stop, err := newStopper() // tells the read loop to end
	if err != nil {
		return fmt.Errorf("relay: stop signal: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		stop.close()
		return fmt.Errorf("relay: stdout: %w", err)
	}
	// A bigger pipe lets the agent write on while the relay is not
	// scheduled (three processes share the cores): fewer stalls of each.
	growPipe(outR.Fd())
	cmd.Stdout = outW
	if err := cmd.Start(); err != nil {
		stop.close()
		outR.Close()
		outW.Close()
		return fmt.Errorf("%s: start %s: %w", sp.Name, sp.Path, err)
	}
	outW.Close()
	s.cmd = cmd
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		s.readLoop(outR, stop.r)
	}()
	go s.reap(outR, stop, readDone)
	return nil
}

// waitRoom blocks the read loop while the journal is too far ahead of the
// app: over MaxUnacked bytes not stored, or, while an app is attached,
// over AttachedBytes. It gives up once reading must end (readStop).
func (s *server) waitRoom() {
	for {
		unacked, ch := s.j.unacked()
		s.mu.Lock()
		attached := s.client != nil
		s.mu.Unlock()
		if unacked <= s.spec.MaxUnacked && (!attached || unacked < s.spec.AttachedBytes) {
			return
		}
		select {
		case <-ch:
		case <-s.readStop:
			return
		case <-time.After(50 * time.Millisecond): // an app may have detached
		}
	}
}

// reap waits for the agent, lets the read loop take the rest of its
// output (for at most WaitDelay: children of the agent may keep the pipe
// open), and records its end.
func (s *server) reap(outR *os.File, stop stopper, readDone chan struct{}) {
	err := s.cmd.Wait()
	_ = proc.KillGroup(s.cmd, syscall.SIGKILL)
	s.tmp.Remove() // the agent's own TMPDIR: nothing of its group is left to write there
	select {
	case <-readDone:
	case <-time.After(s.spec.WaitDelay):
		close(s.readStop)
		stop.signal()
		<-readDone
	}
	outR.Close()
	stop.close()
	ex := Exit{Code: s.cmd.ProcessState.ExitCode(), Stderr: s.errT.String()}
	if err != nil {
		ex.Err = err.Error()
	}
	if st, ok := s.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
		ex.Signal = int(st.Signal())
	}
	s.mu.Lock()
	ex.Stopped, ex.Reason = s.stopping, s.stopReason
	s.mu.Unlock()
	if jerr := s.j.setExit(&ex); jerr != nil {
		s.errT.Write([]byte(jerr.Error() + "\n"))
	}
	s.touch()
	close(s.exited)
}

func (s *server) touch() {
	s.mu.Lock()
	s.lastActive = time.Now()
	s.mu.Unlock()
}

// stop ends the agent: stdin closed, after grace SIGTERM, after WaitDelay SIGKILL.
func (s *server) stop(grace time.Duration, reason string) {
	s.mu.Lock()
	if s.stopping {
		s.mu.Unlock()
		return
	}
	s.stopping, s.stopReason = true, reason
	s.mu.Unlock()
	s.closeStdin()
	go func() {
		for _, st := range []struct {
			wait time.Duration
			sig  syscall.Signal
		}{{grace, syscall.SIGTERM}, {s.spec.WaitDelay, syscall.SIGKILL}} {
			if agent.WaitFor(context.Background(), s.exited, st.wait) {
				return
			}
			_ = proc.KillGroup(s.cmd, st.sig)
		}
	}()
}

func (s *server) writeStdin(line []byte) {
	s.stdinMu.Lock()
	defer s.stdinMu.Unlock()
	if s.stdin == nil || s.stdinClosed {
		return
	}
	_, _ = s.stdin.Write(append(line, '\n'))
}

func (s *server) closeStdin() {
	s.stdinMu.Lock()
	defer s.stdinMu.Unlock()
	if s.stdin != nil && !s.stdinClosed {
		s.stdinClosed = true
		s.stdin.Close()
	}
}

// watchIdle stops an agent nobody attends, and ends a relay whose agent
// ended and that no app came for.
func (s *server) watchIdle(ctx context.Context) {
	tick := min(time.Second, s.spec.IdleExit/4)
	if s.spec.IdleStop > 0 {
		tick = min(tick, s.spec.IdleStop/4)
	}
	t := time.NewTicker(max(tick, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		idle := s.client == nil && time.Since(s.lastActive) > 0
		since := time.Since(s.lastActive)
		s.mu.Unlock()
		select {
		case <-s.exited:
			if idle && since >= s.spec.IdleExit {
				s.finish <- finishIdle
				return
			}
			continue
		default:
		}
		if idle && s.spec.IdleStop > 0 && since >= s.spec.IdleStop {
			s.stop(0, fmt.Sprintf("no app for %s while the agent waited", s.spec.IdleStop))
		}
	}
}

// socketBuffer is the size asked for an app connection's socket buffers
// (the relay's send side, the app's receive side; the kernel caps it at
// net.core.wmem_max / rmem_max). With the default ~200 KB a firehose
// filled the socket in under a millisecond and the relay, the agent and
// the app woke each other in lockstep: 0.75–0.8× a direct pipe's
// frames/s; with 1 MB (and a window of 16384 frames) ~0.93×
// (BenchmarkRelayVsPipe). Kernel memory is only used while frames wait.
const socketBuffer = 1 << 20

func (s *server) accept() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		if uc, ok := c.(*net.UnixConn); ok {
			_ = uc.SetWriteBuffer(socketBuffer) // best effort: a smaller buffer only costs throughput
		}
		go s.serveConn(c)
	}
}

// serveConn runs one app connection: Hello, Welcome, then the journal
// from Hello.From (replay, then live) one way and commands the other.
func (s *server) serveConn(c net.Conn) {
	mr := newMsgReader(c)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	m, err := mr.next()
	var h Hello
	if err == nil && m.Type == MsgHello {
		err = m.JSON(&h)
	} else if err == nil {
		err = ErrBadMessage
	}
	if err != nil || subtle.ConstantTimeCompare([]byte(h.Token), []byte(s.spec.Token)) != 1 {
		_ = WriteJSON(c, MsgError, ErrorMsg{Error: "relay: bad hello or token"})
		c.Close()
		return
	}
	if h.Version < Version {
		_ = WriteJSON(c, MsgError, ErrorMsg{Error: fmt.Sprintf("relay: protocol %d needed, the app speaks %d: update the app", Version, h.Version)})
		c.Close()
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	s.dropClient(c)
	w := Welcome{Version: Version, TaskID: s.spec.TaskID, Role: s.spec.Role, RelayPID: os.Getpid(),
		AgentPID: s.cmd.Process.Pid, First: s.j.firstSeq(), Exited: isClosed(s.exited)}
	if err := WriteJSON(c, MsgWelcome, w); err != nil {
		s.dropClient(nil)
		return
	}
	done, quit := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer c.Close() // a failed write ends the commands side too
		s.sendJournal(c, h.Local, quit)
	}()
	s.commands(mr)
	close(quit)
	c.Close()
	<-done
	s.detached(c)
}

// dropClient makes c the attached client, closing the previous one (a new
// app takes over from a stale connection).
func (s *server) dropClient(c net.Conn) {
	s.mu.Lock()
	old := s.client
	s.client = c
	s.lastActive = time.Now()
	s.mu.Unlock()
	if old != nil && old != c {
		old.Close()
	}
}

func (s *server) detached(c net.Conn) {
	s.mu.Lock()
	if s.client == c {
		s.client = nil
		s.lastActive = time.Now()
	}
	s.mu.Unlock()
}

func (s *server) commands(mr *msgReader) {
	for {
		m, err := mr.next()
		if err != nil {
			return
		}
		switch m.Type {
		case MsgStdin:
			s.writeStdin(m.Payload)
		case MsgCloseStdin:
			s.closeStdin()
		case MsgSignal:
			if len(m.Payload) == 4 {
				sig := syscall.Signal(int32(uint32(m.Payload[0])<<24 | uint32(m.Payload[1])<<16 | uint32(m.Payload[2])<<8 | uint32(m.Payload[3])))
				_ = proc.KillGroup(s.cmd, sig)
			}
		case MsgStop:
			var st Stop
			if m.JSON(&st) == nil {
				s.stop(time.Duration(st.GraceMS)*time.Millisecond, st.Reason)
			}
		case MsgAck:
			if len(m.Payload) >= 9 {
				s.onAck(m.Seq, int64(binary.BigEndian.Uint64(m.Payload)), m.Payload[8]&1 != 0)
			}
		case MsgBye:
			return
		}
	}
}

// onAck takes an app's ack: every line up to seq, before stream offset
// off, is stored, and the agent's end too when exit. Once the end is
// stored the relay's work is done.
func (s *server) onAck(seq uint64, off int64, exit bool) {
	if s.j.ack(seq, off, exit, s.spec.RotateBytes) {
		select {
		case s.finish <- finishTaken:
		default:
		}
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
