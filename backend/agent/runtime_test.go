package agent

import (
	"context"
	"io"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// lineNorm is a normalizer that makes one error event per frame.
type lineNorm struct{ n int }

func (l *lineNorm) Feed(frame []byte) []Event { l.n++; return nil }
func (l *lineNorm) Flush() []Event            { return nil }

type recorder struct{ started, ended chan int }

func (r recorder) ProcessStarted(pid int, role string) { r.started <- pid }
func (r recorder) ProcessEnded(pid int)                { r.ended <- pid }

// TestStreamBackpressure floods the runtime from `yes` while nobody
// consumes: the stream must stop reading (bounded queue, the agent blocked on
// its pipe), and Stop must end it quickly.
func TestStreamBackpressure(t *testing.T) {
	yes, err := exec.LookPath("yes")
	if err != nil {
		t.Skip("no yes(1)")
	}
	st := NewStream("test", &lineNorm{})
	rec := recorder{make(chan int, 1), make(chan int, 1)}
	p, err := StartProcess(context.Background(), ProcSpec{Name: "yes", Path: yes, Args: []string{"a line of flood"},
		Recorder: rec, Role: "test", WaitDelay: 500 * time.Millisecond,
		OnFrame: func(line []byte, at time.Time, err error) { st.Frame(line, at) }})
	if err != nil {
		t.Fatal(err)
	}
	if pid := <-rec.started; pid != p.PID() {
		t.Fatalf("recorded pid %d, want %d", pid, p.PID())
	}
	time.Sleep(300 * time.Millisecond)
	st.mu.Lock()
	n := st.queued()
	st.mu.Unlock()
	if n > MaxQueuedFrames {
		t.Fatalf("queue holds %d frames, limit %d", n, MaxQueuedFrames)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 64<<20 {
		t.Errorf("heap %d MB with a blocked agent", ms.HeapInuse>>20)
	}
	// Consume in the background, as the orchestrator does, and stop.
	go func() {
		for range st.Events() {
		}
	}()
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := p.Stop(ctx, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	st.Close()
	<-st.Done()
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("stop took %v", d)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("Wait after Stop: %v", err)
	}
	select {
	case <-rec.ended:
	case <-time.After(time.Second):
		t.Error("end not recorded")
	}
}

func TestReadLinesTooLong(t *testing.T) {
	r := stringsReader("short\n" + string(make([]byte, 3000)) + "x\nafter\n")
	var got []string
	var errs int
	for l, err := range ReadLines(r, 1000) {
		if err != nil {
			errs++
			continue
		}
		got = append(got, string(l))
	}
	if errs != 1 || len(got) != 2 || got[0] != "short" || got[1] != "after" {
		t.Fatalf("got %q, %d errors", got, errs)
	}
}

func stringsReader(s string) *stringsR { return &stringsR{s: s} }

type stringsR struct{ s string }

func (r *stringsR) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	n := copy(p, r.s)
	r.s = r.s[n:]
	return n, nil
}

// TestStreamQueueKeepsOrder: frames queued while the consumer takes them
// at another pace (the queue reaches the end of its array, the waiting
// batches move to its start) come out once each, in order.
func TestStreamQueueKeepsOrder(t *testing.T) {
	st := NewStream("test", &lineNorm{})
	const n = 20000
	got := make(chan []string, 1)
	go func() {
		var out []string
		i := 0
		for b := range st.Events() {
			out = append(out, string(b.Frame))
			if i++; i%97 == 0 {
				time.Sleep(time.Millisecond) // let the queue fill
			}
		}
		got <- out
	}()
	for i := range n {
		st.Frame([]byte(strconv.Itoa(i)), time.Now())
		if i%1000 == 999 {
			st.Synth(Event{Type: EventError, Error: "synth " + strconv.Itoa(i)})
		}
	}
	st.Close()
	out := <-got
	want := 0
	for _, f := range out {
		if f == "" {
			continue // a synthesized batch
		}
		if f != strconv.Itoa(want) {
			t.Fatalf("frame %q where %d was due", f, want)
		}
		want++
	}
	if want != n || len(out) != n+n/1000 {
		t.Fatalf("%d frames and %d batches delivered, want %d and %d", want, len(out), n, n+n/1000)
	}
}
