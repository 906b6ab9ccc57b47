package workspace

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/wtsetup"
)

// Setup output is stored in frames of up to batchBytes, at least every
// batchEvery while output comes, so a chatty install is tens of frames,
// not one per write.
const (
	batchBytes = 16 << 10
	batchEvery = 250 * time.Millisecond
)

// frameBatcher is the io.Writer a setup command writes to: it gathers
// output into "output" frames. Write blocks while a frame is stored
// (backpressure on the command's pipe).
type frameBatcher struct {
	ctx  context.Context
	out  FrameWriter
	id   string
	mu   sync.Mutex
	buf  []byte
	err  error
	stop chan struct{}
	done chan struct{}
}

func newFrameBatcher(ctx context.Context, out FrameWriter, id string) *frameBatcher {
	b := &frameBatcher{ctx: ctx, out: out, id: id, stop: make(chan struct{}), done: make(chan struct{})}
	go b.tick()
	return b
}

func (b *frameBatcher) tick() {
	defer close(b.done)
	t := time.NewTicker(batchEvery)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.mu.Lock()
			b.flushLocked()
			b.mu.Unlock()
		}
	}
}

// Write implements io.Writer.
func (b *frameBatcher) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return 0, b.err
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= batchBytes {
		b.flushLocked()
	}
	return len(p), b.err
}

func (b *frameBatcher) flushLocked() {
	if len(b.buf) == 0 || b.err != nil {
		return
	}
	b.err = b.writeLocked(wtsetup.Frame{Type: "output", ID: b.id, Data: string(b.buf)})
	b.buf = b.buf[:0]
}

func (b *frameBatcher) writeLocked(f wtsetup.Frame) error {
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return b.out.Write(context.WithoutCancel(b.ctx), data)
}

// frame stores f at once (start and end frames).
func (b *frameBatcher) frame(f wtsetup.Frame) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return b.err
	}
	b.err = b.writeLocked(f)
	return b.err
}

// close stops the ticker and stores what is left.
func (b *frameBatcher) close() error {
	select {
	case <-b.stop:
	default:
		close(b.stop)
	}
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	return b.err
}
