package remote

// Stops asked while a host is unreachable (docs/remote.md): the transport
// queues them in memory and sends them on reconnect; with a StopLog they
// are also stored until the agent's exit arrives, so that an app that
// quits before the host is back (or whose task was deleted meanwhile)
// delivers them at its next start (Tasks.DeliverStop).

import (
	"context"
	"fmt"
	"time"

	"github.com/jean-claude/jean-claude/backend/relay"
	"github.com/jean-claude/jean-claude/backend/store"
)

// StopLog keeps the stops asked while a host was unreachable.
type StopLog interface {
	Add(ctx context.Context, s store.PendingStop) error
	Remove(ctx context.Context, relayID string) error
}

// StopStore is a StopLog that also lists what it keeps.
type StopStore interface {
	StopLog
	List(ctx context.Context) ([]store.PendingStop, error)
}

// StoredStops is the StopStore over the database's remote_pending_stops.
func StoredStops(db *store.DB) StopStore { return dbStops{db} }

type dbStops struct{ db *store.DB }

func (d dbStops) Add(ctx context.Context, s store.PendingStop) error {
	return store.AddPendingStop(ctx, d.db.W, s)
}

func (d dbStops) Remove(ctx context.Context, relayID string) error {
	return store.RemovePendingStop(ctx, d.db.W, relayID)
}

func (d dbStops) List(ctx context.Context) ([]store.PendingStop, error) {
	return store.PendingStops(ctx, d.db.R)
}

// deliverTimeout bounds one delivery: attach, stop, the exit.
const deliverTimeout = 2 * time.Minute

func (p *proc) rememberStop(reason string) {
	if p.t.Stops == nil {
		return
	}
	_ = p.t.Stops.Add(context.Background(), store.PendingStop{RelayID: p.meta.ID, Host: p.t.C.Host(), TaskID: p.taskID, Reason: reason})
}

// forgetStop: the agent's exit arrived (stopped or not, nothing is left
// to stop).
func (p *proc) forgetStop() {
	if p.t.Stops == nil {
		return
	}
	_ = p.t.Stops.Remove(context.Background(), p.meta.ID)
	if p.taskID != "" {
		_ = p.t.Stops.Remove(context.Background(), taskStopKey(p.taskID))
	}
}

// taskStopKey is the key of a stop asked for a task whose relay was not
// found yet (its host unreachable since the app's start): it stops any
// relay of the task.
func taskStopKey(taskID string) string { return "task:" + taskID }

// RememberTaskStop stores the stop of any relay of a task of projectID (a
// task whose host has been unreachable since the app's start, or whose
// agent is never adopted) and returns it; ok false: a local project, or
// no Stops.
func (ts *Tasks) RememberTaskStop(ctx context.Context, projectID, taskID, reason string) (store.PendingStop, bool, error) {
	if ts.Stops == nil {
		return store.PendingStop{}, false, nil
	}
	ph, ok, err := store.GetProjectHost(ctx, ts.DB.R, projectID)
	if err != nil || !ok {
		return store.PendingStop{}, false, err
	}
	s := store.PendingStop{RelayID: taskStopKey(taskID), Host: ph.Host, TaskID: taskID, Reason: reason, RequestedAt: store.Now()}
	return s, true, ts.Stops.Add(ctx, s)
}

// PendingStops lists the stops still to deliver.
func (ts *Tasks) PendingStops(ctx context.Context) ([]store.PendingStop, error) {
	if ts.Stops == nil {
		return nil, nil
	}
	return ts.Stops.List(ctx)
}

// DeliverStop stops the agent of a pending stop whose task is not adopted
// (deleted, or an agent never adopted: Gemini's turn, OpenCode's server):
// it attaches to the relay, sends Stop, reads to the agent's exit without
// keeping what it wrote, and acknowledges the exit (the relay then removes
// its files and ends). A relay no longer on the host is done too. The
// record goes in both cases; an error (Explained) means the host could not
// be asked: the record stays for the next attempt.
func (ts *Tasks) DeliverStop(ctx context.Context, s store.PendingStop) error {
	if ts.Pool == nil {
		return fmt.Errorf("stop on %s: %w", s.Host, ErrSSHNotFound)
	}
	c, err := ts.Pool.Client(s.Host)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, deliverTimeout)
	defer cancel()
	t := ts.hostTransport(c, nil, nil)
	d, err := t.deploy(ctx)
	var metas []relay.Meta
	if err == nil {
		metas, err = c.ListRelays(ctx, RelayDir(d))
	}
	if err != nil {
		return Explain(err)
	}
	for _, m := range metas {
		if m.ID == s.RelayID || s.TaskID != "" && s.RelayID == taskStopKey(s.TaskID) && m.TaskID == s.TaskID {
			if err := stopRelay(ctx, c, d.Path, m, s.Reason); err != nil {
				return Explain(err)
			}
		}
	}
	if ts.Stops != nil {
		return ts.Stops.Remove(ctx, s.RelayID)
	}
	return nil
}

// stopRelay attaches to m (from the journal's start: the exit may be
// written already), stops its agent and acknowledges everything up to
// its exit, so the relay ends and removes its files.
func stopRelay(ctx context.Context, c *Client, bin string, m relay.Meta, reason string) error {
	rc, err := c.DialRelay(ctx, bin, m, 1)
	if err != nil {
		return err
	}
	defer rc.Close()
	stop := context.AfterFunc(ctx, func() { _ = rc.Close() })
	defer stop()
	if err := rc.Stop(3*time.Second, reason); err != nil {
		return fmt.Errorf("remote: stop relay %s on %s: %w", m.ID, c.host, err)
	}
	for {
		msg, err := rc.Next()
		if err != nil {
			return fmt.Errorf("remote: stop relay %s on %s: %w", m.ID, c.host, err)
		}
		switch msg.Type {
		case relay.MsgFrame, relay.MsgTooLong:
			_ = rc.Ack(msg.Seq) // nobody keeps them: the relay may drop them
		case relay.MsgExit:
			var ex relay.Exit
			if err := msg.JSON(&ex); err != nil {
				return err
			}
			return rc.Ack(ex.Seq)
		}
	}
}
