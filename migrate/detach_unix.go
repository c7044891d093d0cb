//go:build unix

package migrate

import (
	"os/exec"
	"syscall"
)

// detach puts the command in a process group of its own.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
