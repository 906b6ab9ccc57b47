package relay

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A start given up after the relay started its agent but before it said it
// was ready (the app's start cancelled, or timed out): the relay is told to
// end, ends its agent, and no process of it is left. A SIGKILL of the relay
// alone left such an agent running with nobody to end it.
func TestLaunchCancelledEndsAgent(t *testing.T) {
	t.Setenv("JC_RELAY_READY_DELAY", "2s")
	spec := relaySpec(t, fake{sleep: time.Minute}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var m Meta
	go func() { // cancel once the agent runs: the relay wrote its meta
		for ctx.Err() == nil {
			if ms, _ := List(spec.Dir); len(ms) == 1 {
				m = ms[0]
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	time.AfterFunc(10*time.Second, cancel)
	if _, err := Launch(ctx, spec.Path, spec); err == nil {
		t.Fatal("Launch succeeded; the test wants it cancelled before the ready line")
	}
	if m.AgentPID == 0 {
		t.Fatal("cancelled before the agent started: nothing tested")
	}
	t.Cleanup(func() { _ = killGroupPid(m.AgentPID) })
	waitGone(t, m.AgentPID)
	waitGone(t, m.RelayPID)
}

// A ready line the app cannot read, from a relay that started its agent:
// Launch fails with the reason and the relay's log, and the relay is told
// to end (it ends its agent) instead of being killed alone.
func TestLaunchBadReadyLineEndsAgent(t *testing.T) {
	t.Setenv("JC_RELAY_BAD_READY", "1")
	spec := relaySpec(t, fake{sleep: time.Minute}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Launch(ctx, spec.Path, spec)
	if err == nil || !strings.Contains(err.Error(), "did not start") {
		t.Fatalf("Launch: %v, want a start that failed", err)
	}
	ms, _ := List(spec.Dir)
	if len(ms) != 1 || ms[0].AgentPID == 0 {
		t.Fatalf("metas %+v: the agent did not start, nothing tested", ms)
	}
	t.Cleanup(func() { _ = killGroupPid(ms[0].AgentPID) })
	waitGone(t, ms[0].AgentPID)
	waitGone(t, ms[0].RelayPID)
}
