package review

import (
	"strings"
	"testing"

	"github.com/loratune/loratune-fix/fixtures"
	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/runner"
)

// BenchmarkFixDemo is the peer: the engine fixing the demo script.
func BenchmarkFixDemo(b *testing.B) {
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	opts := &runner.Options{Engine: eng, Fix: true}
	for b.Loop() {
		runner.Process(opts, "train.py", fixtures.Demo())
	}
}

// BenchmarkReviewDemo is what review adds on top: grouping, patches and
// the rendered comments and body, with the whole file in the diff.
func BenchmarkReviewDemo(b *testing.B) {
	eng, err := rewrite.New(rewrite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f := runner.Process(&runner.Options{Engine: eng, Fix: true}, "train.py", fixtures.Demo())
	n := strings.Count(string(fixtures.Demo()), "\n")
	fd := &FileDiff{Added: []Range{{1, n / 2}}}
	for b.Loop() {
		rv := &Review{Files: []*FileReview{Build(f, fd, false)}}
		rv.Request()
	}
}
