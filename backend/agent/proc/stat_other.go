//go:build !linux

package proc

// StartTicks is unknown off Linux (0).
func StartTicks(int) uint64 { return 0 }

// ParentPID is unknown off Linux (0).
func ParentPID(int) int { return 0 }
