//go:build race

package orchestrator

// raceEnabled: the race detector slows everything ~10x; timing bounds are
// relaxed under it.
const raceEnabled = true
