package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/jean-claude/jean-claude/backend/agent"
	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// Tasks gives the orchestrator the transport of a task whose project lives
// on a host (orchestrator.Hosts): its agent runs there behind a relay.
type Tasks struct {
	Pool *Pool
	DB   *store.DB
	// Binary, Tune, MinBackoff, MaxBackoff: see Transport.
	Binary                 func(goos, goarch string) (string, error)
	Tune                   func(*relay.Spec)
	MinBackoff, MaxBackoff time.Duration
	// Stops keeps the stops asked while a host was unreachable (nil:
	// they last as long as the app; stops.go).
	Stops StopStore

	mu     sync.Mutex
	listed map[string]listing // per host, for the adoptions of one start
}

// listing is the relays found on a host (or why not), kept listTTL.
type listing struct {
	at    time.Time
	d     Deployed
	metas []relay.Meta
	err   error
}

// listTTL is how long a host's relays listing is used again; a failure
// only errTTL: the adoptions of one start (or one retry round) wait for an
// unreachable host once, the next round asks again.
const (
	listTTL = 30 * time.Second
	errTTL  = 2 * time.Second
)

// TransportFor implements orchestrator.Hosts.
func (ts *Tasks) TransportFor(ctx context.Context, projectID string, down func(string, time.Time, error),
	up func(string)) (agent.Transport, bool, error) {
	t, ok, err := ts.transport(ctx, projectID, down, up)
	if err != nil || !ok {
		return nil, ok, err
	}
	return t, true, nil
}

func (ts *Tasks) transport(ctx context.Context, projectID string, down func(string, time.Time, error),
	up func(string)) (*Transport, bool, error) {
	ph, ok, err := store.GetProjectHost(ctx, ts.DB.R, projectID)
	if err != nil || !ok {
		return nil, false, err
	}
	if ts.Pool == nil {
		return nil, true, fmt.Errorf("project on %s: %w", ph.Host, ErrSSHNotFound)
	}
	c, err := ts.Pool.Client(ph.Host)
	if err != nil {
		return nil, true, err
	}
	return ts.hostTransport(c, down, up), true, nil
}

func (ts *Tasks) hostTransport(c *Client, down func(string, time.Time, error), up func(string)) *Transport {
	t := &Transport{C: c, Binary: ts.Binary, Tune: ts.Tune, OnUnreachable: down, OnReachable: up,
		MinBackoff: ts.MinBackoff, MaxBackoff: ts.MaxBackoff}
	if ts.Stops != nil {
		t.Stops = ts.Stops
	}
	return t
}

// Adopt implements orchestrator.Hosts: it lists the relays on the host of
// projectID and attaches to taskID's, replaying its journal from the start
// (frames up to the stored sequence marked Replay). An error (Explained:
// the user's words, the raw error as its Detail) means the relays could not
// be listed, e.g. the host is unreachable: the caller asks again later.
func (ts *Tasks) Adopt(ctx context.Context, projectID, taskID string, stored func(string) (uint64, error),
	down func(string, time.Time, error), up func(string)) (agent.Transport, bool, error) {
	t, ok, err := ts.transport(ctx, projectID, down, up)
	if err != nil || !ok {
		return nil, false, Explain(err)
	}
	d, metas, err := ts.relaysOn(ctx, t)
	if err != nil {
		return nil, false, Explain(err)
	}
	for _, m := range metas {
		if m.TaskID != taskID {
			continue
		}
		seq, err := stored(m.ID)
		if err != nil {
			return nil, false, err
		}
		return adoptTransport{p: &proc{t: t, bin: d.Path, meta: m, taskID: taskID, replayThrough: seq}}, true, nil
	}
	return nil, false, nil
}

// adoptTransport attaches to a relay already running on the host.
type adoptTransport struct{ p *proc }

func (a adoptTransport) Start(ctx context.Context, _ agent.ProcSpec) (agent.Remote, error) {
	if err := a.p.attach(ctx); err != nil {
		return nil, err
	}
	return a.p, nil
}

// listScript prints every relay's meta file in DIR ($1).
const listScript = `for f in "$1"/*.json; do [ -f "$f" ] && cat "$f" && echo; done; exit 0`

// ListRelays reads the relays' meta files on the host.
func (c *Client) ListRelays(ctx context.Context, dir string) ([]relay.Meta, error) {
	out, err := c.Output(ctx, "sh", "-c", listScript, "jc", dir)
	if err != nil {
		return nil, fmt.Errorf("remote: relays on %s: %w", c.host, err)
	}
	var metas []relay.Meta
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m relay.Meta
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return metas, nil
		}
		if err != nil {
			return metas, nil // a torn file of a relay that died while writing it
		}
		metas = append(metas, m)
	}
}

// relaysOn lists the relays on t's host once per listTTL: at start every
// task of a host asks, and an unreachable host is waited for only once.
func (ts *Tasks) relaysOn(ctx context.Context, t *Transport) (Deployed, []relay.Meta, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	host := t.C.Host()
	if l, ok := ts.listed[host]; ok && (l.err != nil && time.Since(l.at) < errTTL || l.err == nil && len(l.metas) > 0 && time.Since(l.at) < listTTL) {
		return l.d, l.metas, l.err
	}
	d, err := t.deploy(ctx)
	var metas []relay.Meta
	if err == nil {
		metas, err = t.C.ListRelays(ctx, RelayDir(d))
	}
	if ts.listed == nil {
		ts.listed = map[string]listing{}
	}
	ts.listed[host] = listing{at: time.Now(), d: d, metas: metas, err: err}
	return d, metas, err
}
