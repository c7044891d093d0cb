//go:build unix

package gitcmd

import (
	"os/exec"
	"syscall"
)

// detach puts the command in a process group of its own; cancelling its
// context kills the whole group.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
