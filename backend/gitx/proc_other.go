//go:build !unix

package gitx

import "os/exec"

// setProcessGroup is a no-op where process groups do not exist; the
// context still kills git itself.
func setProcessGroup(cmd *exec.Cmd) {}
