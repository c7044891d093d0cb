//go:build !unix

package gitcmd

import "os/exec"

func detach(cmd *exec.Cmd) {}
