package agent

// The session runtime: the one process handling and read loop every agent
// backend shares. A backend is its arguments, wire types, normalizer and
// control protocol; everything below is common.
//
//	agent stdout ──lines──▶ Process.readLoop ──OnFrame──▶ backend (control books)
//	                                                        │
//	                                                        ▼
//	                                              Stream.Frame (normalize, queue)
//	                                                        │ bounded: blocks when full
//	                                                        ▼
//	                                              Stream.Events() ──▶ orchestrator
//
// Backpressure: Stream.Frame blocks while the stream holds MaxQueuedFrames
// frames or MaxQueuedBytes bytes that the consumer has not taken. The read
// loop is the caller of Frame, so while it blocks nobody reads the agent's
// stdout: the pipe fills and the agent blocks in write(2). Memory held per
// session is therefore bounded by the queue limits plus one frame (and the
// reader's buffer), whatever the agent writes. Frames the app itself
// writes (a user turn) and synthesized events go through Stream.Local and
// Stream.Synth, which never block: they are bounded by what the user does,
// and blocking them could deadlock a consumer that sends while consuming.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent/proc"
)

// Queue limits of a Stream (see the package comment above on backpressure).
// On top of them, up to deliveredBuffer batches wait in the Events channel
// (so that a consumer may stop a session before it drains it).
const (
	MaxQueuedFrames = 256
	MaxQueuedBytes  = 8 << 20
	deliveredBuffer = 64
)

// ProcessRecorder records every process the app starts, so that the next
// start after a crash can end what a dead app left running. The runtime
// calls ProcessStarted right after the process started (before any of its
// output is read) and ProcessEnded once it and its group are gone.
// Implementations must be safe for concurrent use and must not block long.
type ProcessRecorder interface {
	ProcessStarted(pid int, role string)
	ProcessEnded(pid int)
}

// ProcSpec describes one agent process.
type ProcSpec struct {
	// Name prefixes errors ("claude-code").
	Name string
	// Path is the resolved executable; Args its arguments (never a shell).
	Path string
	Args []string
	Dir  string
	// Env is the whole environment (nil: the app's).
	Env []string
	// Stdin keeps a pipe to the process's stdin (Process.WriteLine); without
	// it stdin reads StdinData (nil: /dev/null).
	Stdin     bool
	StdinData []byte
	// Role is what the recorder stores ("agent claude-code", "opencode-server").
	Role     string
	Recorder ProcessRecorder
	// WaitDelay is how long after SIGTERM the group gets SIGKILL (default 3s).
	WaitDelay time.Duration
	// StderrTail is how many bytes of stderr are kept for errors (default 16 KiB).
	StderrTail int
	// OnFrame gets each non-empty stdout line, in order, from the read loop.
	// It may block; while it blocks stdout is not read (backpressure). A
	// line longer than MaxFrameBytes is skipped: OnFrame gets its first KiB
	// and an ErrFrameTooLong error, and reading goes on. Nil discards stdout
	// (a server whose output nobody reads).
	OnFrame func(line []byte, at time.Time, err error)
	// Transport runs the process elsewhere (behind a relay, see remote.go);
	// nil asks the Recorder (TransportProvider), else a direct child.
	Transport Transport
	// Stream, when set, is bound to the process before its first frame
	// (Stream.Bind without the race of binding after the start).
	Stream *Stream
}

// Process is one running agent process, leader of its own process group.
type Process struct {
	spec   ProcSpec
	cmd    *exec.Cmd
	stderr *proc.Tail

	writeMu     sync.Mutex
	stdin       io.WriteCloser
	stdinClosed bool

	stopping atomic.Bool
	exited   chan struct{} // the process was reaped (exitErr set)
	exitErr  error
	done     chan struct{} // exited and stdout read to its end

	rs *remoteState // behind a relay (remote.go); cmd is nil
	// tmp is the process's own TMPDIR (WithTmpDir), removed once its
	// group is gone; nil behind a relay (the relay makes the agent's).
	tmp *PrivateDir
}

// StartProcess starts spec in its own process group and its read loop. ctx
// bounds the start only.
func StartProcess(ctx context.Context, spec ProcSpec) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if spec.WaitDelay <= 0 {
		spec.WaitDelay = 3 * time.Second
	}
	if spec.StderrTail <= 0 {
		spec.StderrTail = 16 << 10
	}
	if t := transportOf(ctx, spec); t != nil {
		p, err := startRemote(ctx, t, spec)
		if !errors.Is(err, ErrTransportUnavailable) {
			return p, err
		}
	}
	tmp, err := NewPrivateDir("tmp")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Name, err)
	}
	p := &Process{spec: spec, stderr: proc.NewTail(spec.StderrTail), exited: make(chan struct{}), done: make(chan struct{}), tmp: tmp}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Dir, cmd.Env, cmd.Stderr = spec.Dir, WithTmpDir(spec.Env, tmp.Path), p.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd = cmd
	if err := p.start(cmd); err != nil {
		tmp.Remove()
		return nil, err
	}
	return p, nil
}

// WithTmpDir returns env (nil: this process's environment) with TMPDIR
// set to dir: appended last, which os/exec keeps over an earlier TMPDIR of
// env. env itself is not changed.
//
// Every agent process gets a TMPDIR of its own (a PrivateDir), removed
// once its process group is gone: agent CLIs leave files in the temporary
// directory on every run and never remove them (OpenCode 1.18 unpacks a
// 5.4 MB native library there each time its server searches files, Claude
// Code writes its --settings JSON to a claude-settings-*.json per
// session), so without it a user's /tmp grows with every task. One a crash
// left is removed by the next start (SweepPrivateDirs).
func WithTmpDir(env []string, dir string) []string {
	if env == nil {
		env = os.Environ()
	}
	return append(env[:len(env):len(env)], "TMPDIR="+dir)
}

// start starts cmd with its pipes, then its read loop and its reaper.
func (p *Process) start(cmd *exec.Cmd) error {
	spec := p.spec
	if spec.Stdin {
		w, err := cmd.StdinPipe()
		if err != nil {
			return fmt.Errorf("%s: stdin: %w", spec.Name, err)
		}
		p.stdin = w
	} else if spec.StdinData != nil {
		cmd.Stdin = bytes.NewReader(spec.StdinData)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("%s: stdout: %w", spec.Name, err)
	}
	cmd.Stdout = outW
	if err := cmd.Start(); err != nil {
		outR.Close()
		outW.Close()
		return fmt.Errorf("%s: start %s: %w", spec.Name, spec.Path, err)
	}
	outW.Close()
	if spec.Recorder != nil {
		spec.Recorder.ProcessStarted(cmd.Process.Pid, spec.Role)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		p.readLoop(outR)
	}()
	go p.reap(outR, readDone)
	return nil
}

// reap waits for the process, kills what is left of its group, and ends
// the read loop even if a process outside the group holds stdout open.
func (p *Process) reap(outR *os.File, readDone chan struct{}) {
	err := p.cmd.Wait()
	_ = proc.KillGroup(p.cmd, syscall.SIGKILL) // grandchildren go with the leader
	p.tmp.Remove()                             // nothing of the group is left to write there
	p.exitErr = err
	close(p.exited)
	if p.spec.Recorder != nil {
		p.spec.Recorder.ProcessEnded(p.cmd.Process.Pid)
	}
	select {
	case <-readDone:
	case <-time.After(p.spec.WaitDelay):
		outR.Close() // the read loop sees os.ErrClosed (unless it is held by backpressure)
		<-readDone
	}
	outR.Close()
	close(p.done)
}

func (p *Process) readLoop(r io.Reader) {
	for line, err := range ReadLines(r, MaxFrameBytes) {
		if err != nil && !errors.Is(err, ErrFrameTooLong) {
			if !errors.Is(err, os.ErrClosed) && p.spec.OnFrame != nil {
				p.spec.OnFrame(nil, time.Now(), fmt.Errorf("%s: reading stdout: %w", p.spec.Name, err))
			}
			return
		}
		if p.spec.OnFrame != nil {
			p.spec.OnFrame(line, time.Now(), err)
		}
	}
}

func transportOf(ctx context.Context, spec ProcSpec) Transport {
	if spec.Transport != nil {
		return spec.Transport
	}
	if tp, ok := spec.Recorder.(TransportProvider); ok {
		return tp.TransportFor(ctx, spec)
	}
	return nil
}

// PID is the process (and process group) id; behind a relay, the agent's.
func (p *Process) PID() int {
	if p.rs != nil {
		return p.rs.r.PID()
	}
	return p.cmd.Process.Pid
}

// Exited is closed once the process has been reaped.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Done is closed once the process has been reaped and its stdout read to
// the end (every OnFrame call has returned).
func (p *Process) Done() <-chan struct{} { return p.done }

// Stderr is the tail of what the process wrote on stderr (behind a relay:
// known once it ended).
func (p *Process) Stderr() string {
	if p.rs != nil {
		if ex := p.RelayExit(); ex != nil {
			return ex.Stderr
		}
		return ""
	}
	return p.stderr.String()
}

// WriteLine writes b and a newline to stdin.
func (p *Process) WriteLine(b []byte) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	return p.writeLocked(b)
}

func (p *Process) writeLocked(b []byte) error {
	if p.rs != nil {
		if p.stdinClosed || !p.spec.Stdin || isDone(p.exited) {
			return ErrSessionClosed
		}
		if err := p.rs.r.WriteLine(b); err != nil {
			return fmt.Errorf("%s: write stdin: %w (%w)", p.spec.Name, err, ErrSessionClosed)
		}
		return nil
	}
	if p.stdin == nil || p.stdinClosed {
		return ErrSessionClosed
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("%s: write stdin: %w (%w)", p.spec.Name, err, ErrSessionClosed)
	}
	return nil
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// WithStdin runs fn while holding the stdin lock, so that what fn queues
// (a Stream.Local of the line) and writes keep one order.
func (p *Process) WithStdin(fn func(write func([]byte) error) error) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if (p.rs == nil && p.stdin == nil) || (p.rs != nil && !p.spec.Stdin) || p.stdinClosed {
		return ErrSessionClosed
	}
	return fn(p.writeLocked)
}

// CloseStdin closes stdin (EOF for agents that stop on it).
func (p *Process) CloseStdin() {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	if p.rs != nil && !p.stdinClosed {
		p.stdinClosed = true
		_ = p.rs.r.CloseStdin()
		return
	}
	if p.stdin != nil && !p.stdinClosed {
		p.stdinClosed = true
		p.stdin.Close()
	}
}

// Signal sends sig to the whole process group.
func (p *Process) Signal(sig syscall.Signal) error {
	if p.rs != nil {
		return p.rs.r.Signal(sig)
	}
	return proc.KillGroup(p.cmd, sig)
}

// Stop ends the process gracefully: stdin is closed, after grace the group
// gets SIGTERM, after WaitDelay SIGKILL. It returns once the process is
// reaped and its stdout read (Done), or when ctx ends. Exits caused by Stop
// are not errors in Wait.
func (p *Process) Stop(ctx context.Context, grace time.Duration) error {
	p.stopping.Store(true)
	if p.rs != nil {
		return p.stopRemote(ctx, grace)
	}
	p.CloseStdin()
	steps := []struct {
		wait time.Duration
		sig  syscall.Signal
	}{{grace, syscall.SIGTERM}, {p.spec.WaitDelay, syscall.SIGKILL}}
	for _, st := range steps {
		if !WaitFor(ctx, p.exited, st.wait) {
			if ctx.Err() != nil {
				break
			}
			_ = p.Signal(st.sig)
		}
	}
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		_ = p.Signal(syscall.SIGKILL)
		return fmt.Errorf("%s: stop: %w", p.spec.Name, ctx.Err())
	}
}

// Stopping reports whether Stop was called.
func (p *Process) Stopping() bool { return p.stopping.Load() }

// Wait blocks until Done and returns why the process ended: nil for exit
// status 0 or an end caused by Stop, else the status with the stderr tail.
func (p *Process) Wait() error {
	<-p.done
	return p.ExitError()
}

// ExitError is Wait's answer once Exited is closed (nil before).
func (p *Process) ExitError() error {
	select {
	case <-p.exited:
	default:
		return nil
	}
	if p.rs != nil {
		return p.remoteExitError()
	}
	err := p.exitErr
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if p.stopping.Load() && errors.As(err, &ee) && !ee.Exited() {
		return nil // killed by our own Stop
	}
	if t := strings.TrimSpace(p.stderr.String()); t != "" {
		return fmt.Errorf("%s: %w; stderr: %s", p.spec.Name, err, t)
	}
	return fmt.Errorf("%s: %w", p.spec.Name, err)
}

// ExitCode is the exit status (-1 when killed by a signal or not exited).
func (p *Process) ExitCode() int {
	select {
	case <-p.exited:
	default:
		return -1
	}
	if p.rs != nil {
		if ex := p.RelayExit(); ex != nil {
			return ex.Code
		}
		return -1
	}
	return p.cmd.ProcessState.ExitCode()
}

// Signaled returns the signal that ended the process, if one did.
func (p *Process) Signaled() (syscall.Signal, bool) {
	select {
	case <-p.exited:
	default:
		return 0, false
	}
	if p.rs != nil {
		if ex := p.RelayExit(); ex != nil && ex.Signal != 0 {
			return syscall.Signal(ex.Signal), true
		}
		return 0, false
	}
	st, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !st.Signaled() {
		return 0, false
	}
	return st.Signal(), true
}

// WaitFor waits up to d (or until ctx ends) for ch to close and reports
// whether it closed; a ch that closed as the wait ended counts as closed.
func WaitFor(ctx context.Context, ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Stream is a session's ordered, bounded frame pipeline: each frame is
// normalized in arrival order and delivered as a Batch on Events. See the
// file comment for its backpressure.
type Stream struct {
	format string

	mu     sync.Mutex
	cond   *sync.Cond
	norm   Normalizer
	q      []Batch // the queue is q[off:]: taken from its front, appended at its end (enqueue)
	off    int
	bytes  int
	closed bool
	out    chan Batch
	done   chan struct{}
	src    *remoteState // the relayed process whose read loop calls Frame (Bind)
}

// Bind makes every frame p's read loop hands to Frame carry an Ack that the
// consumer calls once the frame is stored: a relay then keeps the frame in
// its journal until it is, so an app that dies in between loses nothing.
// Without Bind a relayed frame counts as stored once OnFrame returned. A
// direct child needs no Bind (it is a no-op).
func (s *Stream) Bind(p *Process) {
	if p == nil || p.rs == nil {
		return
	}
	s.bindRemote(p.rs)
}

func (s *Stream) bindRemote(rs *remoteState) {
	s.mu.Lock()
	s.src = rs
	s.mu.Unlock()
	rs.manual.Store(true)
}

// Replaying reports whether the frame the bound process's read loop is
// handing over (call it from OnFrame) is a replay of one the app stored
// already (an adopted relay): a backend keeps its books from it but must
// not answer it again.
func (s *Stream) Replaying() bool {
	s.mu.Lock()
	rs := s.src
	s.mu.Unlock()
	return rs != nil && rs.replay.Load()
}

// NewStream returns a running stream of raw format format normalized by n.
func NewStream(format string, n Normalizer) *Stream {
	if k, ok := n.(FrameKeeper); ok {
		k.KeepFrames() // push never modifies a frame, and keeps it in its batch
	}
	s := &Stream{format: format, norm: n, out: make(chan Batch, deliveredBuffer), done: make(chan struct{})}
	s.cond = sync.NewCond(&s.mu)
	go s.run()
	return s
}

// Events delivers the batches in order; it is closed after Close once
// everything queued was taken.
func (s *Stream) Events() <-chan Batch { return s.out }

// Done is closed when Events is closed.
func (s *Stream) Done() <-chan struct{} { return s.done }

// Frame normalizes one frame the agent wrote and queues its batch; it
// blocks while the queue is full (backpressure on the agent's stdout).
// It returns the frame's events (read-only) so a backend can keep its
// books (session id, turn end). After Close it still queues (nothing read
// is dropped) but no longer waits.
func (s *Stream) Frame(frame []byte, at time.Time) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.closed && s.queued() > 0 && (s.queued() >= MaxQueuedFrames || s.bytes >= MaxQueuedBytes) {
		s.cond.Wait()
	}
	evs := s.push(frame, at)
	if rs := s.src; rs != nil {
		if seq := rs.cur.Load(); seq > 0 {
			b := &s.q[len(s.q)-1]
			if rs.replay.Load() {
				b.Replayed = true
			} else {
				b.acker, b.RelayID, b.RelaySeq = rs, rs.r.ID(), seq
			}
		}
	}
	return evs
}

// Local is Frame for a frame the app itself wrote to the agent (a user
// turn): it never blocks.
func (s *Stream) Local(frame []byte) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.push(frame, time.Now())
}

// Synth queues events that have no raw frame (the app's own notices: a
// failed start, an exit). It never blocks.
func (s *Stream) Synth(evs ...Event) {
	if len(evs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enqueue(Batch{Format: s.format, Events: evs, ReceivedAt: time.Now()})
	s.cond.Broadcast()
}

// queued is the number of batches waiting to be delivered.
func (s *Stream) queued() int { return len(s.q) - s.off }

// enqueue appends b to the queue. Batches are taken from the front, so
// when the array is full the waiting ones move to its start first:
// appending alone would allocate a new array each time the queue reached
// the end of its capacity (~280 bytes a frame under a flood).
func (s *Stream) enqueue(b Batch) {
	if len(s.q) == cap(s.q) && s.off > 0 {
		n := copy(s.q, s.q[s.off:])
		clear(s.q[n:])
		s.q, s.off = s.q[:n], 0
	}
	s.q = append(s.q, b)
}

func (s *Stream) push(frame []byte, at time.Time) []Event {
	evs := s.norm.Feed(frame)
	s.enqueue(Batch{Frame: frame, Format: s.format, Events: evs, ReceivedAt: at})
	s.bytes += len(frame)
	s.cond.Broadcast()
	return evs
}

// Close flushes the normalizer; Events is closed once the queue is taken.
// Frames queued after Close are still delivered.
func (s *Stream) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if evs := s.norm.Flush(); len(evs) > 0 {
		s.enqueue(Batch{Format: s.format, Events: evs, ReceivedAt: time.Now()})
	}
	s.closed = true
	s.cond.Broadcast()
}

func (s *Stream) run() {
	defer close(s.done)
	defer close(s.out)
	for {
		s.mu.Lock()
		for s.queued() == 0 && !s.closed {
			s.cond.Wait()
		}
		if s.queued() == 0 {
			s.mu.Unlock()
			return
		}
		b := s.q[s.off]
		s.mu.Unlock()
		s.out <- b // waits for the consumer: this is where a lagging store holds the agent
		s.mu.Lock()
		s.q[s.off] = Batch{}
		if s.off++; s.off == len(s.q) {
			s.q, s.off = s.q[:0], 0
		}
		s.bytes -= len(b.Frame)
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// ReadLines yields the non-empty lines of r (without the line break), each
// a slice the caller owns. A line longer than max is skipped: its first KiB
// is yielded with an ErrFrameTooLong error and reading goes on, so a
// stalled pipe never blocks the agent. Other errors end the sequence.
//
// A long line is gathered in chunks and joined once into a slice of its
// exact size, so reading an N-byte line allocates about 2N (not the ~4N of
// growing one slice by append).
func ReadLines(r io.Reader, max int) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		br := bufio.NewReaderSize(r, 64<<10)
		var lr lineAcc
		for {
			chunk, err := br.ReadSlice('\n')
			if len(chunk) > 0 && !lr.tooLong {
				if lr.n+len(chunk) > max+1 {
					head := lr.head(chunk)
					lr.reset()
					lr.tooLong = true // skip to the end of this line
					if !yield(head, fmt.Errorf("%w (over %d bytes): line skipped", ErrFrameTooLong, max)) {
						return
					}
				} else {
					lr.add(chunk)
				}
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if !lr.tooLong {
				if line := lr.line(); line != nil && !yield(line, nil) {
					return
				}
			}
			lr.reset()
			if err != nil {
				if err != io.EOF {
					yield(nil, err)
				}
				return
			}
		}
	}
}

// collectAfter is the line size from which ReadLines collects a line's
// chunks as soon as it is joined (a rare line: a whole file in one frame).
const collectAfter = 4 << 20

// lineAcc gathers one line's chunks.
type lineAcc struct {
	chunks  [][]byte
	n       int
	tooLong bool
}

func (l *lineAcc) add(chunk []byte) {
	l.chunks = append(l.chunks, bytes.Clone(chunk))
	l.n += len(chunk)
}

func (l *lineAcc) reset() { l.chunks, l.n, l.tooLong = l.chunks[:0], 0, false }

// head is the first KiB of the line so far and chunk.
func (l *lineAcc) head(chunk []byte) []byte {
	var h []byte
	for _, c := range append(l.chunks, chunk) {
		h = append(h, c[:min(len(c), 1024-len(h))]...)
		if len(h) >= 1024 {
			break
		}
	}
	return h
}

// line joins the chunks, trimmed of the line break; nil for a blank line.
func (l *lineAcc) line() []byte {
	var out []byte
	if len(l.chunks) == 1 {
		out, l.chunks[0] = l.chunks[0], nil // already a copy of its own size
	} else {
		out = make([]byte, 0, l.n)
		for i, c := range l.chunks {
			out = append(out, c...)
			l.chunks[i] = nil
		}
		if l.n >= collectAfter {
			// The chunks are garbage as big as the line: collected now,
			// they are not still held while the line is decoded (which
			// makes a copy of its text), and the heap peaks at two
			// copies of the line, not three (BenchmarkHugeLine).
			runtime.GC()
		}
	}
	out = bytes.TrimRight(out, "\r\n")
	if len(bytes.TrimSpace(out)) == 0 {
		return nil
	}
	return out
}
