package remote

import "syscall"

// masterAttr: own process group; SIGTERM when the app dies.
func masterAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
