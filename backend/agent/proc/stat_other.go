//go:build !linux

package proc

import (
	"errors"
	"fmt"
)

// ReadStat is unsupported off Linux.
func ReadStat(pid int) (Stat, error) {
	return Stat{}, fmt.Errorf("proc: stat of %d: %w", pid, errors.ErrUnsupported)
}

// Pids is unsupported off Linux.
func Pids() ([]int, error) {
	return nil, fmt.Errorf("proc: process list: %w", errors.ErrUnsupported)
}

// List is unsupported off Linux.
func List() ([]Stat, error) {
	return nil, fmt.Errorf("proc: process list: %w", errors.ErrUnsupported)
}

// Cmdline is unsupported off Linux.
func Cmdline(pid int) (string, error) {
	return "", fmt.Errorf("proc: command line of %d: %w", pid, errors.ErrUnsupported)
}
