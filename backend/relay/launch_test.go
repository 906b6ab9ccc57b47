package relay

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A start given up after the relay started its agent but before it said it
// was ready (the app's start cancelled, or timed out): the relay is told to
// end, ends its agent, and no process of it is left. A SIGKILL of the relay
// alone left such an agent running with nobody to end it.
func TestLaunchCancelledEndsAgent(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "jcr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("JC_RELAY_READY_DELAY", "2s")
	id, token := NewID()
	spec := Spec{Dir: filepath.Join(dir, "relays"), ID: id, Token: token, TaskID: "task-1", Role: "agent fake",
		Name: "fake", Path: exe, Env: append(os.Environ(), "JC_FAKE_AGENT=1", "JC_FAKE_SLEEP=60s"), Stdin: true,
		WaitDelay: time.Second}
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
	if _, err := Launch(ctx, exe, spec); err == nil {
		t.Fatal("Launch succeeded; the test wants it cancelled before the ready line")
	}
	if m.AgentPID == 0 {
		t.Fatal("cancelled before the agent started: nothing tested")
	}
	t.Cleanup(func() { _ = killGroupPid(m.AgentPID) })
	waitGone(t, m.AgentPID)
	waitGone(t, m.RelayPID)
}
