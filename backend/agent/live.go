package agent

import (
	"context"
	"errors"
	"sync"
)

// Live is the set of a backend's live sessions, so that Dispose can stop
// them all. The zero value is empty and ready; it is safe for concurrent
// use.
type Live[S interface {
	comparable
	Stop(context.Context) error
}] struct {
	mu sync.Mutex
	m  map[S]struct{}
}

// Add records s as live.
func (l *Live[S]) Add(s S) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[S]struct{}{}
	}
	l.m[s] = struct{}{}
}

// Remove forgets s (once it ended).
func (l *Live[S]) Remove(s S) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, s)
}

// Len is how many sessions are live.
func (l *Live[S]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.m)
}

// StopAll stops every live session at once, waits for them and returns
// their errors joined.
func (l *Live[S]) StopAll(ctx context.Context) error {
	l.mu.Lock()
	ss := make([]S, 0, len(l.m))
	for s := range l.m {
		ss = append(ss, s)
	}
	l.mu.Unlock()
	errs := make([]error, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Go(func() { errs[i] = s.Stop(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}
