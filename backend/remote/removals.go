package remote

// Worktrees of deleted tasks whose host was unreachable (issue 21,
// docs/remote.md): the task is deleted at once, the removal of its
// worktree (and branch) there is stored (remote_pending_removals) and done
// as soon as the host answers, by RunRemovals, across restarts.

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jean-claude/jean-claude/backend/gitx"
	"github.com/jean-claude/jean-claude/backend/store"
)

// DeferRemoval implements workspace.RemoteRemovals: r, on projectID's
// host, is stored and tried again by RunRemovals.
func (p *ProjectGits) DeferRemoval(ctx context.Context, projectID string, r store.PendingRemoval) error {
	ph, ok, err := store.GetProjectHost(ctx, p.DB.R, projectID)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("remote: not a project on a host")
	}
	r.Host = ph.Host
	if err := store.AddPendingRemoval(ctx, p.DB.W, r); err != nil {
		return err
	}
	select {
	case p.kicks() <- struct{}{}:
	default:
	}
	return nil
}

func (p *ProjectGits) log() *slog.Logger {
	if p.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.Log
}

func (p *ProjectGits) kicks() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kick == nil {
		p.kick = make(chan struct{}, 1)
	}
	return p.kick
}

// removalTimeout bounds one removal's git calls on its host.
const removalTimeout = 2 * time.Minute

// DeliverRemovals tries every stored removal once and returns how many are
// left (their host still unreachable). A removal is done, and forgotten,
// once the host answered: the worktree removed (or already gone) and the
// branch deleted when merged or forced; a worktree with changes the user
// did not confirm to drop stays there (the task is gone: nothing is lost).
func (p *ProjectGits) DeliverRemovals(ctx context.Context) int {
	list, err := store.PendingRemovals(ctx, p.DB.R)
	if err != nil {
		p.log().Warn("remote: pending removals", "err", err)
		return 1 // asked again later
	}
	left := 0
	for _, r := range list {
		if ctx.Err() != nil {
			return left + 1
		}
		rctx, cancel := context.WithTimeout(ctx, removalTimeout)
		err := p.remove(rctx, r)
		cancel()
		if errors.Is(err, gitx.ErrHostUnreachable) || ctx.Err() != nil {
			left++
			continue
		}
		if err != nil {
			p.log().Warn("remote: deleted task's worktree not removed", "host", r.Host, "worktree", r.Worktree, "err", err)
		}
		if err := store.RemovePendingRemoval(ctx, p.DB.W, r.TaskID); err != nil {
			left++
		}
	}
	return left
}

// remove removes r's worktree and branch on its host; an unreachable host
// is the only error that keeps r.
func (p *ProjectGits) remove(ctx context.Context, r store.PendingRemoval) error {
	g := p.gitOn(r.Host)
	err := g.RemoveWorktree(ctx, gitx.RemoveOptions{Repo: r.Repo, Path: r.Worktree, Force: r.Force})
	if err != nil && !errors.Is(err, gitx.ErrNotWorktree) {
		return err
	}
	if r.Branch == "" {
		return nil
	}
	err = g.DeleteBranch(ctx, gitx.DeleteBranchOptions{Repo: r.Repo, Branch: r.Branch, Source: r.SourceBranch, Force: r.ForceBranch})
	if err != nil && (errors.Is(err, gitx.ErrBranchNotFound) || errors.Is(err, gitx.ErrUnmergedBranch)) {
		return nil // gone already, or kept as a local delete keeps it
	}
	return err
}

// RunRemovals delivers the stored removals until ctx ends: at once, then
// while some are left every RetryMin doubling to RetryMax, and whenever a
// removal is deferred.
func (p *ProjectGits) RunRemovals(ctx context.Context) {
	minW, maxW := p.RetryMin, p.RetryMax
	if minW <= 0 {
		minW = 5 * time.Second
	}
	if maxW <= 0 {
		maxW = 5 * time.Minute
	}
	wait := minW
	for {
		var retry <-chan time.Time
		if p.DeliverRemovals(ctx) > 0 {
			retry = time.After(wait)
			wait = min(wait*2, maxW)
		} else {
			wait = minW
		}
		select {
		case <-ctx.Done():
			return
		case <-p.kicks():
		case <-retry:
		}
	}
}
