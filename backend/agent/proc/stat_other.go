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
