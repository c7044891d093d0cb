package runner

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/launch"
	"github.com/loratune/loratune-fix/version"
)

// processLaunch runs the launch-config rules over a YAML, JSON or shell
// file. A file that is not a launch config by its content is skipped, as a
// prefilter miss is.
func processLaunch(opts *Options, f *finding.FileResult) {
	lo := launch.Options{Engine: opts.Engine, Fix: opts.Fix, Read: neighbours(f.Path)}
	if opts.Versions != nil {
		lo.Versions = func() version.Versions {
			f.Versions = opts.Versions(f.Path)
			return f.Versions
		}
	}
	res, ok, err := launch.Run(lo, f.Path, f.Before)
	if !ok {
		f.Skipped = true
		return
	}
	if err != nil {
		f.Err = &FileError{f.Path, err}
		return
	}
	for _, fd := range res.Findings {
		f.Diags = append(f.Diags, finding.Diag{Finding: fd})
	}
	f.Dropped = res.Dropped
	if opts.Fix {
		f.After, f.Changed = res.Output, res.Changed
	}
}

// neighbours reads the files a launch file names (its script, its
// DeepSpeed or accelerate config) by the path written in it. A launcher
// runs from a folder the file does not tell: the path is tried from the
// launch file's folder, then from each folder above it up to the
// repository root (the folder holding .git).
func neighbours(path string) func(string) ([]byte, error) {
	return func(name string) ([]byte, error) {
		if filepath.IsAbs(name) {
			return readSmall(name)
		}
		dir, err := filepath.Abs(filepath.Dir(path))
		if err != nil {
			return nil, err
		}
		for {
			data, err := readSmall(filepath.Join(dir, name))
			if err == nil {
				return data, nil
			}
			if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
				return nil, os.ErrNotExist
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return nil, os.ErrNotExist
			}
			dir = parent
		}
	}
}

// readSmall reads a regular file no larger than the default size limit.
func readSmall(name string) ([]byte, error) {
	data, _, err := readSource(name, DefaultMaxFileSize, nil)
	return data, err
}

// tooLargeError is a file over the size limit of its read.
type tooLargeError struct{ size, limit int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%d bytes, over --max-file-size %d; skipped", e.size, e.limit)
}
