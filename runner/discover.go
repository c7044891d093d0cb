package runner

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// skipDirs are never entered: version control, caches, installed packages.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "__pycache__": true, "node_modules": true,
	"site-packages": true, ".venv": true, "venv": true, ".tox": true, ".nox": true,
	".mypy_cache": true, ".ruff_cache": true, ".pytest_cache": true, ".ipynb_checkpoints": true,
}

// isVirtualenv reports a folder made by venv/virtualenv under any name.
func isVirtualenv(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// Sources reports whether a file name is one loratune-fix reads.
func Sources(name string) bool {
	return strings.HasSuffix(name, ".py") || strings.HasSuffix(name, ".ipynb")
}

// Discover expands paths into the files to process, sorted by path within
// each directory argument. A path that cannot be read is returned as an
// error naming it; the others are still listed.
func Discover(paths []string) ([]string, []error) {
	var files []string
	var errs []error
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			errs = append(errs, &FileError{p, unwrapPathError(err)})
			continue
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		var found []string
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, &FileError{path, unwrapPathError(err)})
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				if path != p && (skipDirs[d.Name()] || isVirtualenv(path)) {
					return fs.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() && Sources(d.Name()) {
				found = append(found, path)
			}
			return nil
		})
		sort.Strings(found)
		files = append(files, found...)
	}
	return files, errs
}
