package agenttest

import (
	"context"
	"errors"

	"github.com/jean-claude/jean-claude/backend/agent"
)

// ErrHostOnly is what a HostRecorder's transport answers every start with.
var ErrHostOnly = errors.New("recorded, not started")

// HostRecorder is an agent.Config.Recorder that hands every process to a
// transport that only records what it was asked to start (as a host's
// relay would get it) and refuses with ErrHostOnly: a backend's Start on
// another host (agent.OnHost) can be checked without a host.
type HostRecorder struct{ Got []agent.ProcSpec }

// ProcessStarted implements agent.ProcessRecorder.
func (r *HostRecorder) ProcessStarted(int, string) {}

// ProcessEnded implements agent.ProcessRecorder.
func (r *HostRecorder) ProcessEnded(int) {}

// TransportFor gives every process to r.
func (r *HostRecorder) TransportFor(context.Context, agent.ProcSpec) agent.Transport { return r }

// Start records spec and refuses.
func (r *HostRecorder) Start(_ context.Context, spec agent.ProcSpec) (agent.Remote, error) {
	r.Got = append(r.Got, spec)
	return nil, ErrHostOnly
}
