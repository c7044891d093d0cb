package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// fullDisk takes a few bytes, then fails every write, as a full disk does.
type fullDisk struct{ room int }

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) > d.room {
		n := d.room
		d.room = 0
		return n, errors.New("no space left on device")
	}
	d.room -= len(p)
	return len(p), nil
}

// A report that cannot be written is exit 2 with one line naming the
// error, whatever the format, the stdin filter included.
func TestOutputWriteErrorIsExit2(t *testing.T) {
	_, path := writeDemo(t)
	for _, tt := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"check", "--output-format", "jsonl", path}},
		{"", []string{"check", "--output-format", "json", path}},
		{"", []string{"check", path}},
		{"", []string{"fix", "--output-format", "jsonl", path}},
		{"", []string{"fix", "--color", "never", path}},
		{string(demoScript), []string{"fix", "-", "--stdin-filename", "train.py"}},
		{"", []string{"demo", "--color", "never"}},
	} {
		root := newRoot()
		var stderr bytes.Buffer
		root.SetOut(&fullDisk{room: 10})
		root.SetErr(&stderr)
		root.SetIn(strings.NewReader(tt.stdin))
		root.SetArgs(tt.args)
		code := exitStatus(root.Execute(), &stderr)
		var lines []string
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.Contains(l, "no space left") {
				lines = append(lines, l)
			}
		}
		if code != exitError || len(lines) != 1 || !strings.HasPrefix(lines[0], "loratune-fix: error: writing the output: no space left on device") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming the write error", tt.args, code, stderr.String())
		}
	}
}
