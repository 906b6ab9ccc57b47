package relay

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// The journal (protocol 3) is the agent's stdout exactly as it wrote it:
// the relay splices it from the agent's pipe into the file (splice(2), no
// copy through the relay) and sends it to the app from the file
// (sendfile(2)). The relay never splits, numbers or copies what the agent
// writes; lines are numbered where they are read (lineSplitter), which is
// what made a relay cost as little as a pipe (BenchmarkRelayVsPipe,
// docs/relay.md). The file is
//
//	"JCR3" | first (8, BE) | base (8, BE) | the agent's bytes
//
// first is the sequence of the first line after the header and base the
// offset in the agent's whole output (the stream offset) where it starts.
// Protocol messages and acks speak in stream offsets, which never go back;
// a rotation (everything in the file stored) truncates the file to its
// header and writes a new one. A line the agent had not finished when the
// relay died ends the readable journal; the agent's end is written beside
// it (<journal>.exit, JSON) before any app hears of it.
const (
	rawMagic = "JCR3"
	rawHdr   = 20
)

// Fsync policy: the agent's bytes are in the file (the kernel holds the
// page) before any app gets them, so a kill -9 of the app or of the relay
// loses nothing. fsync only matters for a crash of the machine; the
// journal is synced at most once per SyncEvery while output arrives and
// always at the agent's end and on close, so a power loss costs at most
// SyncEvery of output (the app's own SQLite runs with synchronous=NORMAL
// in WAL mode, which makes the same trade).
const SyncEvery = time.Second

// errJournalWrite is a failed write of the journal (a full disk).
var errJournalWrite = errors.New("relay: journal write")

// spliceMax bounds one splice(2) from the agent's pipe.
const spliceMax = 1 << 20

// journal is the relay's journal file and where it stands.
type journal struct {
	path string
	f    *os.File
	fd   int

	// wmu is held by the writer around each move of bytes into the file,
	// and by a rotation: a rotation never truncates under a write.
	wmu sync.Mutex
	// rot is read-held by a sender around each send from the file; a
	// rotation takes it only if no send is under way (TryLock).
	rot sync.RWMutex

	mu         sync.Mutex
	base, size int64  // stream offsets of the file's first byte after the header and of its end
	first      uint64 // sequence of the line at base
	ackedSeq   uint64
	ackedOff   int64 // an app stored everything before this stream offset
	exit       *Exit
	exitTaken  bool          // an app stored the exit: the relay's work is done
	wantRotate bool          // the writer rotates before its next write
	notify     chan struct{} // closed and replaced on every write, rotation and exit (the senders wait on it)
	acks       chan struct{} // closed and replaced on every ack (the writer waits on it for room)
	lastSync   time.Time
	dirty      bool
	syncing    bool
	copying    bool   // splice(2) refused by the file system: read and write instead
	buf        []byte // copying's buffer
	pending    []byte // copying: read from the pipe, not written yet (the write failed)
	// live is the attached app's connection once its sender caught up:
	// the writer sends each new stretch to it itself (liveSink).
	live    *liveSink
	exitSet chan struct{} // closed when the agent's end is recorded
}

func openJournal(path string) (*journal, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("relay: journal: %w", err)
	}
	j := &journal{path: path, f: f, fd: int(f.Fd()), first: 1, notify: make(chan struct{}), acks: make(chan struct{}), exitSet: make(chan struct{}), lastSync: time.Now()}
	if err := j.writeHeader(1, 0); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

func (j *journal) writeHeader(first uint64, base int64) error {
	h := make([]byte, 0, rawHdr)
	h = append(h, rawMagic...)
	h = binary.BigEndian.AppendUint64(h, first)
	h = binary.BigEndian.AppendUint64(h, uint64(base))
	if _, err := j.f.WriteAt(h, 0); err != nil {
		return fmt.Errorf("relay: journal header: %w", err)
	}
	return nil
}

// fill moves what the agent's pipe (fd, non-blocking) holds into the file
// and returns how many bytes: 0 and no error at the end of the output,
// unix.EAGAIN when the pipe is empty.
func (j *journal) fill(fd int) (int64, error) {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	j.mu.Lock()
	if j.wantRotate {
		j.rotateLocked()
	}
	off := rawHdr + j.size - j.base
	j.mu.Unlock()
	n, err := j.move(fd, off)
	if n > 0 {
		j.mu.Lock()
		start := j.size
		j.size += n
		j.dirty = true
		if time.Since(j.lastSync) >= SyncEvery && !j.syncing {
			j.syncBackground()
		}
		sink, ls := j.live, liveSend{at: off, n: n, end: j.size, first: j.first, base: j.base}
		if sink != nil && sink.off == start {
			sink.off, ls.rotated, sink.base = j.size, sink.base != j.base, j.base
		} else {
			sink = nil
		}
		j.wakeLocked()
		j.mu.Unlock()
		sink.send(j, ls) // the file cannot rotate meanwhile: wmu is held
	}
	return n, err
}

// move splices up to spliceMax bytes of fd into the file at off; on a file
// system that refuses splice(2) it reads and writes them. A failed write
// (errJournalWrite) loses nothing: what splice could not write is still
// in the pipe, and what was read to be copied is written first next time.
func (j *journal) move(fd int, off int64) (int64, error) {
	if !j.copying {
		n, err := splice(fd, j.fd, &off, spliceMax)
		if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) {
			if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EBADF) {
				err = fmt.Errorf("%w: %w", errJournalWrite, err)
			}
			return max(n, 0), err
		}
		j.copying = true
	}
	if len(j.pending) == 0 {
		if j.buf == nil {
			j.buf = make([]byte, 256<<10)
		}
		n, err := unix.Read(fd, j.buf)
		if n <= 0 {
			return 0, err
		}
		j.pending = j.buf[:n]
	}
	if _, err := j.f.WriteAt(j.pending, off); err != nil {
		return 0, fmt.Errorf("%w: %w", errJournalWrite, err)
	}
	n := len(j.pending)
	j.pending = nil
	return int64(n), nil
}

// syncBackground fsyncs the journal without holding up the writer: the
// policy (at most SyncEvery of output lost to a machine crash) holds, and
// a slow disk does not stall the agent's output.
func (j *journal) syncBackground() {
	j.syncing, j.dirty, j.lastSync = true, false, time.Now()
	go func() {
		_ = j.f.Sync()
		j.mu.Lock()
		j.syncing = false
		j.mu.Unlock()
	}()
}

func (j *journal) syncLocked() {
	if j.dirty {
		_ = j.f.Sync()
		j.dirty = false
	}
	j.lastSync = time.Now()
}

func (j *journal) wakeLocked() {
	close(j.notify)
	j.notify = make(chan struct{})
}

// ack records that an app stored every line before stream offset off (the
// last of them seq), and that it stored the agent's end (exit). Once
// everything written is stored and the file is over limit, it rotates. It
// reports whether the end is stored (the relay's work is done).
func (j *journal) ack(seq uint64, off int64, exit bool, limit int64) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if off > j.ackedOff {
		j.ackedSeq, j.ackedOff = seq, min(off, j.size)
		close(j.acks)
		j.acks = make(chan struct{})
	}
	if exit && j.exit != nil {
		j.exitTaken = true
	}
	if j.ackedOff == j.size && j.size-j.base > limit && j.exit == nil {
		if j.wmu.TryLock() {
			j.rotateLocked()
			j.wmu.Unlock()
		} else {
			j.wantRotate = true
		}
	}
	return j.exitTaken
}

// rotateLocked truncates the file to its header (everything in it was
// stored) and writes the new header; the sequences and stream offsets go
// on. A crash between the two leaves the old header over no bytes: an
// empty journal, which is what it is. It gives up while a sender reads the
// file (the next ack tries again).
func (j *journal) rotateLocked() {
	j.wantRotate = false
	if j.ackedOff != j.size || j.exit != nil || j.size == j.base || !j.rot.TryLock() {
		return
	}
	defer j.rot.Unlock()
	if j.f.Truncate(rawHdr) != nil || j.writeHeader(j.ackedSeq+1, j.size) != nil {
		return
	}
	j.base, j.first = j.size, j.ackedSeq+1
	j.wakeLocked()
}

// unacked is how many bytes no app stored yet, and a channel closed at the
// next ack.
func (j *journal) unacked() (int64, <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.size - j.ackedOff, j.acks
}

// journalView is where the journal stands, for a sender.
type journalView struct {
	base, size int64
	first      uint64
	exit       *Exit
	notify     <-chan struct{}
}

func (j *journal) view() journalView {
	j.mu.Lock()
	defer j.mu.Unlock()
	return journalView{base: j.base, size: j.size, first: j.first, exit: j.exit, notify: j.notify}
}

// setExit records the agent's end (after its last byte is in the file):
// beside the journal first (synced), so that an app reading the journal of
// a relay that died knows it, then for the senders.
func (j *journal) setExit(ex *Exit) error {
	b, err := json.Marshal(ex)
	if err != nil {
		return err
	}
	err = writeSynced(exitPath(j.path), b)
	j.mu.Lock()
	j.exit = ex
	j.syncLocked()
	j.wakeLocked()
	close(j.exitSet)
	j.mu.Unlock()
	return err
}

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	return nil
}

// exitPath is where a journal's agent end is written.
func exitPath(journal string) string { return journal + ".exit" }

func (j *journal) firstSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.first
}

func (j *journal) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.syncLocked()
	j.f.Close()
}

// ReadJournal reads a journal file (of a relay that is gone) and yields its
// lines from sequence from on, as records; it returns the agent's end if
// the relay recorded one. A line the agent had not finished ends it
// quietly, unless the agent ended (then it was its last line). The app
// uses it after a relay crashed, to keep every frame it had journaled. A
// journal of an older relay (records) is read as such.
func ReadJournal(path string, from uint64, yield func(Record) error) (*Exit, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("relay: journal: %w", err)
	}
	defer f.Close()
	var h [rawHdr]byte
	if n, _ := f.ReadAt(h[:], 0); n < rawHdr || string(h[:4]) != rawMagic {
		return readRecords(f, from, yield)
	}
	ex, err := readExit(exitPath(path))
	if err != nil {
		return nil, err
	}
	var l lineSplitter
	l.reset(binary.BigEndian.Uint64(h[4:12]), int64(binary.BigEndian.Uint64(h[12:20])))
	give := func(m Msg) error {
		if m.Seq < from {
			return nil
		}
		kind := recFrame
		if m.Type == MsgTooLong {
			kind = recTooLong
		}
		return yield(Record{Kind: kind, Seq: m.Seq, Payload: bytes.Clone(m.Payload)})
	}
	buf := make([]byte, 1<<20)
	for off := int64(rawHdr); ; {
		n, rerr := f.ReadAt(buf, off)
		off += int64(n)
		for data := buf[:n]; len(data) > 0; {
			k, m, ok := l.take(data, false)
			if ok {
				if err := give(m); err != nil {
					return nil, err
				}
			}
			data = data[k:]
		}
		if rerr == io.EOF || n == 0 {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("relay: journal: %w", rerr)
		}
	}
	if ex == nil {
		return nil, nil
	}
	if l.pending() {
		if m, ok := l.end(nil, false); ok {
			if err := give(m); err != nil {
				return nil, err
			}
		}
	}
	ex.Seq = l.seq
	return ex, nil
}

// readExit reads the agent's end written beside a journal (nil: none).
func readExit(path string) (*Exit, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("relay: journal exit: %w", err)
	}
	var ex Exit
	if err := json.Unmarshal(b, &ex); err != nil {
		return nil, fmt.Errorf("relay: journal exit: %w", err)
	}
	return &ex, nil
}
