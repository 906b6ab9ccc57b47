package relay

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"time"
)

// Journal records. Each is
//
//	length (4, BE, of the payload) | crc32c (4, of kind+seq+payload) | kind (1) | seq (8, BE) | payload
//
// A record torn by a crash of the relay (short, or a bad checksum) ends the
// journal: it was never sent to any app, since the relay sends a frame only
// after its record is written.
const (
	recFrame   byte = 'F' // an stdout line
	recTooLong byte = 'L' // the first KiB of a line over the limit
	recExit    byte = 'X' // the agent ended: JSON Exit
	recHdr          = 17
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Record is one journal entry.
type Record struct {
	Kind    byte
	Seq     uint64
	Payload []byte
}

// Fsync policy: every record is written with write(2) before it is sent to
// an app, so a kill -9 of the app or of the relay loses nothing (the kernel
// holds the page). fsync only matters for a crash of the machine; the
// journal is synced at most once per SyncEvery while records arrive and
// always on the exit record and on close, so a power loss costs at most
// SyncEvery of output (the app's own SQLite runs with synchronous=NORMAL in
// WAL mode, which makes the same trade).
const SyncEvery = time.Second

// journal is the relay's append side. Readers follow it with a tail.
type journal struct {
	path string

	mu       sync.Mutex
	f        *os.File
	size     int64
	gen      int    // bumped on each rotation
	next     uint64 // next sequence
	first    uint64 // oldest sequence in the file
	acked    uint64 // highest sequence an app stored
	exit     *Exit
	notify   chan struct{} // closed and replaced on every write and rotation (the senders wait on it)
	acks     chan struct{} // closed and replaced on every ack (the read loop waits on it for room)
	lastSync time.Time
	dirty    bool
	syncing  bool // a background fsync runs
	// tail and prev mirror the file's last bytes so that the sender gives
	// live frames to the app from memory instead of reading back what was
	// just written. Records are encoded straight into tail's spare
	// capacity and written from there (one copy per frame); a full chunk
	// becomes prev and another array is taken: the one prev held before,
	// if no sender reads it any more (spare), else a fresh one. The bytes
	// of a slice handed out are never written again while it is pinned.
	tail, prev tailChunk
	spare      *memChunk
	// live is the attached app's connection once its sender caught up:
	// the writer sends new records to it itself (see liveSink).
	live *liveSink
}

// tailChunk holds the journal's bytes [off, off+len(b)), in c's array.
type tailChunk struct {
	c   *memChunk
	b   []byte
	off int64
}

// memChunk is one array of the in-memory tail. pins counts the senders
// whose view is in it (under journal.mu): it is used again (no new 4 MiB
// array to zero and fault in, no garbage) only once it has left the tail
// and no sender reads it.
type memChunk struct {
	buf  []byte
	pins int
}

// TailBytes is the size of one in-memory tail chunk (the relay keeps two).
const TailBytes = 4 << 20

func openJournal(path string) (*journal, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("relay: journal: %w", err)
	}
	return &journal{path: path, f: f, next: 1, first: 1, notify: make(chan struct{}), acks: make(chan struct{}), lastSync: time.Now()}, nil
}

// appendBatch writes recs in one write(2), with consecutive sequences, then
// sends them to the live app, if one is.
func (j *journal) appendBatch(recs []pendingRec) error {
	j.mu.Lock()
	b, sink, err := j.writeLocked(recs)
	j.mu.Unlock()
	sink.send(b)
	return err
}

// writeLocked writes recs and returns their bytes and the live sink they
// are for (nil: none; its sender reads them from the journal): the caller
// sends them once it let go of the lock. Only one goroutine writes at a
// time (the read loop, then reap's exit record), so the bytes stay as
// they are until it writes again.
func (j *journal) writeLocked(recs []pendingRec) ([]byte, *liveSink, error) {
	n := 0
	for _, r := range recs {
		n += recHdr + len(r.line)
	}
	buf, kept := j.reserve(n)
	for i, r := range recs {
		buf = appendRecord(buf, r.kind, j.next+uint64(i), r.line)
	}
	if _, err := j.f.WriteAt(buf, j.size); err != nil {
		return nil, nil, fmt.Errorf("relay: journal write: %w", err)
	}
	if kept {
		j.tail.b = j.tail.b[:len(j.tail.b)+len(buf)]
	} else {
		j.dropTail() // a gap: the next write starts a fresh chunk
	}
	j.size += int64(len(buf))
	j.next += uint64(len(recs))
	j.dirty = true
	if time.Since(j.lastSync) >= SyncEvery && !j.syncing {
		j.syncBackground()
	}
	j.wakeLocked()
	sink := j.live
	if sink == nil || sink.gen != j.gen || sink.off != j.size-int64(len(buf)) {
		return buf, nil, nil
	}
	sink.off = j.size
	return buf, sink, nil
}

// reserve returns an empty slice with room for n bytes to be written at
// j.size: in the tail chunk (kept) when n fits in one.
func (j *journal) reserve(n int) ([]byte, bool) {
	if n > TailBytes {
		return make([]byte, 0, n), false
	}
	if cap(j.tail.b)-len(j.tail.b) < n || j.tail.off+int64(len(j.tail.b)) != j.size {
		if len(j.tail.b) > 0 {
			j.retire(j.prev)
			j.prev = j.tail
		} else {
			j.retire(j.tail)
		}
		c := j.spare
		if c == nil {
			c = &memChunk{buf: make([]byte, TailBytes)}
		}
		j.spare = nil
		j.tail = tailChunk{c: c, b: c.buf[:0], off: j.size}
	}
	l := len(j.tail.b)
	return j.tail.b[l:l:cap(j.tail.b)], true
}

// retire takes t out of the tail: its array is kept for the next chunk
// unless a sender still reads it (then unpinLocked keeps it once it is
// let go).
func (j *journal) retire(t tailChunk) {
	if t.c != nil && t.c.pins == 0 {
		j.spare = t.c
	}
}

// dropTail empties the in-memory tail (a rotation, or a write too large
// for a chunk).
func (j *journal) dropTail() {
	j.retire(j.prev)
	j.retire(j.tail)
	j.tail, j.prev = tailChunk{}, tailChunk{}
}

// unpinLocked lets go of a sender's view in c.
func (j *journal) unpinLocked(c *memChunk) {
	if c == nil {
		return
	}
	c.pins--
	if c.pins == 0 && c != j.tail.c && c != j.prev.c {
		j.spare = c
	}
}

// unpin lets go of *pin (a sender stopped reading from memory).
func (j *journal) unpin(pin **memChunk) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.unpinLocked(*pin)
	*pin = nil
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

// tailAt is the journal's bytes from off of generation gen from memory, up
// to size or the end of the chunk holding off (false: not there). off is
// a record's start; records never span chunks. The chunk stays pinned in
// *pin (the one pinned before is let go) until the sender reads elsewhere.
func (j *journal) tailAt(gen int, off, size int64, pin **memChunk) ([]byte, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if gen != j.gen || off >= size {
		return nil, false
	}
	for _, c := range [2]tailChunk{j.tail, j.prev} {
		end := min(c.off+int64(len(c.b)), size)
		if off >= c.off && off < end {
			if c.c != *pin {
				j.unpinLocked(*pin)
				c.c.pins++
				*pin = c.c
			}
			return c.b[off-c.off : end-c.off : end-c.off], true
		}
	}
	return nil, false
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

// ack records that an app stored everything up to seq, and rotates the file
// (truncates it) once everything written was stored and it is over limit.
// It reports whether the exit record is journaled and acked (the relay's
// work is done): decided under the lock the exit record is written under,
// so an ack that arrives as soon as the record could be sent counts.
func (j *journal) ack(seq uint64, limit int64) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if seq > j.acked {
		j.acked = min(seq, j.next-1)
		if j.acked == j.next-1 && j.size > limit && j.exit == nil {
			j.rotateLocked()
		}
		close(j.acks)
		j.acks = make(chan struct{})
	}
	return j.exit != nil && j.acked >= j.exit.Seq
}

// rotateLocked truncates the file (everything in it was stored); the
// sequences go on.
func (j *journal) rotateLocked() {
	if err := j.f.Truncate(0); err == nil {
		j.size, j.first = 0, j.next
		j.gen++
		j.dropTail()
		if j.live != nil { // it had everything: the app stored it all
			j.live.gen, j.live.off = j.gen, 0
		}
		j.wakeLocked()
	}
}

// state is where the journal stands, and a channel closed at the next ack.
func (j *journal) state() (next, acked uint64, size int64, acks <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.next, j.acked, j.size, j.acks
}

func (j *journal) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.syncLocked()
	j.f.Close()
}

func appendRecord(buf []byte, kind byte, seq uint64, payload []byte) []byte {
	start := len(buf)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(payload)))
	buf = append(buf, 0, 0, 0, 0, kind)
	buf = binary.BigEndian.AppendUint64(buf, seq)
	buf = append(buf, payload...)
	binary.BigEndian.PutUint32(buf[start+4:start+8], crc32.Checksum(buf[start+8:], crcTable))
	return buf
}

// errTorn marks the end of the readable journal.
var errTorn = errors.New("relay: torn journal record")

// readRecord reads the record at off of r; io.EOF at a clean end, errTorn
// for a partial or corrupt record.
func readRecord(r io.ReaderAt, off int64) (Record, int64, error) {
	var hdr [recHdr]byte
	n, err := r.ReadAt(hdr[:], off)
	if n == 0 && errors.Is(err, io.EOF) {
		return Record{}, 0, io.EOF
	}
	if n < recHdr {
		return Record{}, 0, errTorn
	}
	ln := binary.BigEndian.Uint32(hdr[0:4])
	if ln > MaxMsgBytes {
		return Record{}, 0, errTorn
	}
	body := make([]byte, 9+int(ln))
	copy(body, hdr[8:])
	if m, _ := r.ReadAt(body[9:], off+recHdr); m < int(ln) {
		return Record{}, 0, errTorn
	}
	if crc32.Checksum(body, crcTable) != binary.BigEndian.Uint32(hdr[4:8]) {
		return Record{}, 0, errTorn
	}
	rec := Record{Kind: body[0], Seq: binary.BigEndian.Uint64(body[1:9]), Payload: body[9:]}
	return rec, recHdr + int64(ln), nil
}

// ReadJournal reads a journal file (of a relay that is gone) and yields its
// records from sequence from on; a torn last record ends it quietly. The
// app uses it after a relay crashed, to keep every frame it had journaled.
func ReadJournal(path string, from uint64, yield func(Record) error) (*Exit, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("relay: journal: %w", err)
	}
	defer f.Close()
	var off int64
	for {
		rec, n, err := readRecord(f, off)
		if err == io.EOF || errors.Is(err, errTorn) {
			return nil, nil
		}
		off += n
		if rec.Seq < from {
			continue
		}
		if rec.Kind == recExit {
			var ex Exit
			if err := json.Unmarshal(rec.Payload, &ex); err != nil {
				return nil, fmt.Errorf("relay: journal exit record: %w", err)
			}
			return &ex, nil
		}
		if err := yield(rec); err != nil {
			return nil, err
		}
	}
}

// appendExit journals the agent's end as the last record (synced). The
// journal knows its sequence (for ack) from the moment the record can be
// sent: the app may ack it before this returns.
func (j *journal) appendExit(ex *Exit) error {
	j.mu.Lock()
	ex.Seq = j.next
	b, err := json.Marshal(ex)
	if err != nil {
		j.mu.Unlock()
		return err
	}
	j.exit = ex
	rec, sink, err := j.writeLocked([]pendingRec{{kind: recExit, line: b}})
	if err == nil {
		j.syncLocked()
	}
	j.mu.Unlock()
	sink.send(rec)
	return err
}

func (j *journal) firstSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.first
}

// tail is where a reader of the live journal stands.
func (j *journal) at() (gen int, size int64, ch <-chan struct{}) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.gen, j.size, j.notify
}

func encodeRecord(kind byte, seq uint64, payload []byte) []byte {
	return appendRecord(make([]byte, 0, recHdr+len(payload)), kind, seq, payload)
}
