package launch

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/loratune/loratune-fix/rewrite"
)

var fuzzNames = []string{"c.yaml", "c.json", "c.sh"}

// FuzzLaunch: on any text, a run never panics; a fixed file is still the
// same kind of launch file (valid JSON for JSON), and a second run changes
// nothing. Seeds: the launch fixtures.
func FuzzLaunch(f *testing.F) {
	filepath.WalkDir("../fixtures/launch", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !Candidate(path) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for i, n := range fuzzNames {
			if filepath.Ext(n) == filepath.Ext(path) || filepath.Ext(path) == ".yml" && i == 0 {
				f.Add(uint8(i), data)
			}
		}
		return nil
	})
	eng, err := rewrite.New(rewrite.Options{UnsafeFixes: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, kind uint8, text []byte) {
		name := fuzzNames[int(kind)%len(fuzzNames)]
		opts := Options{Engine: eng, Fix: true}
		res, ok, err := Run(opts, name, text)
		if err != nil || !ok || !res.Changed {
			return
		}
		if name == "c.json" && !json.Valid(res.Output) {
			t.Fatalf("fixed JSON is not valid:\n%s", res.Output)
		}
		if Recognise(name, res.Output) != Recognise(name, text) {
			t.Fatalf("the fix changed the kind of file:\n%s", res.Output)
		}
		again, ok, err := Run(opts, name, res.Output)
		if err != nil || !ok || again.Changed {
			t.Fatalf("a second run changes the output (ok %v, err %v):\n%s\n---\n%s", ok, err, res.Output, again.Output)
		}
	})
}
