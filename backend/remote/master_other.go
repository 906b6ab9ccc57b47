//go:build !linux

package remote

import "syscall"

// masterAttr: own process group (the app closes it at exit).
func masterAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
