package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/loratune/loratune-fix/finding"
)

// tally counts findings the same way for check and fix, so that their
// summaries agree.
type tally struct {
	unsafeFixes bool // --unsafe-fixes: unsafe fixes count as fixable
	findings    int
	bySeverity  map[finding.Severity]int
	// The findings by outcome (the engine runs fix's passes for check too).
	fixable     int // resolved by fix --write (with --unsafe-fixes when given)
	unsafe      int // resolved only with --unsafe-fixes, which was not given
	unfixed     int // left as they are
	failing     int // findings that make check fail: not info
	failingLeft int // of those, the ones fix --write leaves
	changed     int // files the fixes change
	byRule      map[string]*ruleCount
}

type ruleCount struct {
	code, name string
	n, fixable int
}

func newTally(unsafeFixes bool) *tally {
	return &tally{unsafeFixes: unsafeFixes, bySeverity: map[finding.Severity]int{}, byRule: map[string]*ruleCount{}}
}

// add counts one file's findings.
func (t *tally) add(f *finding.FileResult) {
	if f.Changed {
		t.changed++
	}
	for _, d := range f.Diags {
		t.findings++
		t.bySeverity[d.Severity]++
		if d.Severity != finding.SeverityInfo {
			t.failing++
			if d.Outcome != finding.OutcomeFixed {
				t.failingLeft++
			}
		}
		rc := t.byRule[d.Code]
		if rc == nil {
			rc = &ruleCount{code: d.Code, name: d.Name}
			t.byRule[d.Code] = rc
		}
		rc.n++
		switch d.Outcome {
		case finding.OutcomeFixed:
			t.fixable++
			rc.fixable++
		case finding.OutcomeUnsafe:
			t.unsafe++
		default:
			t.unfixed++
		}
	}
}

// fixCommand is the command line that applies the fixable findings.
func (t *tally) fixCommand() string {
	if t.unsafeFixes {
		return "`loratune-fix fix --write --unsafe-fixes`"
	}
	return "`loratune-fix fix --write`"
}

// severities is "3 errors, 1 warning, 2 info" (those present).
func (t *tally) severities() string {
	var parts []string
	for _, s := range []finding.Severity{finding.SeverityError, finding.SeverityWarning, finding.SeverityInfo} {
		if n := t.bySeverity[s]; n > 0 {
			word := string(s)
			if s != finding.SeverityInfo {
				word += plural(n)
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, word))
		}
	}
	return strings.Join(parts, ", ")
}

// summary is the last line of check and of fix's preview: what was found,
// what the fix command applies, what it does not.
func (t *tally) summary() string {
	if t.findings == 0 {
		return "No findings: nothing to fix."
	}
	msg := fmt.Sprintf("Found %d finding%s (%s): %d fixable with %s", t.findings, plural(t.findings), t.severities(), t.fixable, t.fixCommand())
	if t.unsafe > 0 {
		msg += fmt.Sprintf(", %d more with `loratune-fix fix --write --unsafe-fixes`", t.unsafe)
	}
	if t.unfixed > 0 {
		msg += fmt.Sprintf(", %d not fixed", t.unfixed)
	}
	return msg + "."
}

// printSummary writes a run's last line, unless files failed and nothing
// was found: the error lines say it all, and "No findings" after them
// would read as a clean run.
func (t *tally) printSummary(w io.Writer, errs int, line string) {
	if errs > 0 && t.findings == 0 {
		return
	}
	fmt.Fprintln(w, line)
}

// writtenSummary is the last line after fixes were written.
func (t *tally) writtenSummary() string {
	if t.findings == 0 {
		return "No findings: nothing to fix."
	}
	msg := fmt.Sprintf("Fixed %d of %d finding%s in %d file%s", t.fixable, t.findings, plural(t.findings), t.changed, plural(t.changed))
	if rest := t.findings - t.fixable; rest > 0 {
		msg += fmt.Sprintf("; %d remain", rest)
		var why []string
		if t.unsafe > 0 {
			why = append(why, fmt.Sprintf("%d with `--unsafe-fixes`", t.unsafe))
		}
		if t.unfixed > 0 {
			why = append(why, fmt.Sprintf("%d not fixed", t.unfixed))
		}
		msg += " (" + strings.Join(why, ", ") + "; see `loratune-fix check`)"
	}
	return msg + "."
}

// statistics writes one line per rule, most frequent first, as ruff's
// --statistics: count, code, name, and [*] when all of them are fixable.
func (t *tally) statistics(w io.Writer) {
	rows := make([]*ruleCount, 0, len(t.byRule))
	for _, rc := range t.byRule {
		rows = append(rows, rc)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].n != rows[j].n {
			return rows[i].n > rows[j].n
		}
		return rows[i].code < rows[j].code
	})
	countWidth, nameWidth := 1, 1
	for _, rc := range rows {
		countWidth = max(countWidth, len(fmt.Sprint(rc.n)))
		nameWidth = max(nameWidth, len(rc.name))
	}
	for _, rc := range rows {
		mark := ""
		switch {
		case rc.fixable == rc.n:
			mark = "[*]"
		case rc.fixable > 0:
			mark = "[-]"
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%*d  %s  %-*s  %s", countWidth, rc.n, rc.code, nameWidth, rc.name, mark), " "))
	}
}
