package relay

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// Records: the journal of a relay of protocol 2 (an older binary), which
// an app may still meet after an upgrade (a relay it adopts, or the
// journal of one that died). Each record is
//
//	length (4, BE, of the payload) | crc32c (4, of kind+seq+payload) | kind (1) | seq (8, BE) | payload
//
// A relay of protocol 2 sends them as they are journaled, in Records
// messages; the client reads each as the Frame, TooLong or Exit message it
// stands for. This binary's relay journals the agent's bytes as they are
// (journal.go) and never writes records.
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

// readRecords reads a journal of records from sequence from on; a torn
// last record ends it quietly.
func readRecords(r io.ReaderAt, from uint64, yield func(Record) error) (*Exit, error) {
	var off int64
	for {
		rec, n, err := readRecord(r, off)
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
