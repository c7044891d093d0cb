//go:build unix

// Package nobody runs the running test binary again as the user nobody:
// file modes do not bind root, and CI runs as root, so the tests of
// unreadable files and read-only folders drop privileges to mean
// something there.
package nobody

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Command returns a command that runs a copy of the running test binary,
// placed in dir, as the user nobody (uid and gid 65534), in dir. Nobody
// must be able to enter dir.
func Command(dir string, args ...string) (*exec.Cmd, error) {
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return cmd, nil
}
