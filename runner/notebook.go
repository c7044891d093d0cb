package runner

import "errors"

// processNotebook is filled in by the notebook support.
func processNotebook(opts *Options, f *File) {
	f.Err = &FileError{f.Path, errors.New("notebooks are not supported yet")}
}
