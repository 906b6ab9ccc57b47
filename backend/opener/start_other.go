//go:build !unix

package opener

import (
	"fmt"
	"os/exec"
)

// Start runs argv (no shell) in dir and does not wait for it.
func Start(argv []string, dir string) error {
	if len(argv) == 0 {
		return fmt.Errorf("opener: nothing to run")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("opener: start %s: %w", argv[0], err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
