//go:build !unix

package migrate

import "os/exec"

func detach(cmd *exec.Cmd) {}
