package migrate

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// ReadRepos reads a repositories file: one local path or git URL a line;
// blank lines and lines starting with # are skipped.
func ReadRepos(r io.Reader) ([]string, error) {
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}

// ReadDone reads a report (JSON Lines) and returns the repositories it
// shows done: clean, up-to-date, changed or left-alone. A line cut short by an
// interrupted run is ignored (that repository runs again). A report that
// does not exist yet shows nothing done: the first run of a job that
// resumes its own report (a retried pod, a loop) starts from scratch.
func ReadDone(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	done := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var r Result
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Repo != "" {
			done[r.Repo] = r.Done() // a later line wins
		}
	}
	return done, sc.Err()
}

// Report writes one JSON line per repository as soon as it is done, in
// one write each, so an interrupted run keeps every finished line.
type Report struct {
	f *os.File
}

// CreateReport opens path for the report; with appendTo it adds to the
// lines already there (--resume of the same file), else starts afresh.
func CreateReport(path string, appendTo bool) (*Report, error) {
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return nil, err
	}
	return &Report{f}, nil
}

// Add writes r's line and syncs it to disk.
func (rp *Report) Add(r *Result) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := rp.f.Write(append(line, '\n')); err != nil {
		return err
	}
	return rp.f.Sync()
}

// Close closes the report file.
func (rp *Report) Close() error { return rp.f.Close() }

// Summary writes a table of the repositories and a line of totals, with
// the share of the time spent in git (clone, commit, push) and in the
// engine (fix).
func Summary(w io.Writer, results []*Result) {
	sort.Slice(results, func(i, j int) bool { return results[i].Repo < results[j].Repo })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPOSITORY\tSTATUS\tFILES\tCOMMIT\tPR\tSECONDS\tCLONE_S\tFIX_S\tCOMMIT_S\tPUSH_S\tERROR")
	counts := map[Status]int{}
	var p Phases
	for _, r := range results {
		counts[r.Status]++
		p.Clone += r.Phases.Clone
		p.Fix += r.Phases.Fix
		p.Commit += r.Phases.Commit
		p.Push += r.Phases.Push
		commit := r.Commit
		if len(commit) > 10 {
			commit = commit[:10]
		}
		if commit == "" {
			commit = "-"
		}
		pr := "-"
		if r.PR != nil {
			pr = string(r.PR.State)
			if r.PR.Number > 0 {
				pr += fmt.Sprintf(" #%d", r.PR.Number)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s\n", r.Repo, r.Status, len(r.Files), commit, pr,
			r.Seconds, r.Phases.Clone, r.Phases.Fix, r.Phases.Commit, r.Phases.Push, r.Error)
	}
	tw.Flush()
	changed := fmt.Sprintf("%d changed", counts[Changed])
	if n := counts[WouldChange]; n > 0 {
		changed = fmt.Sprintf("%d would change (dry run)", n)
	}
	fmt.Fprintf(w, "%d repositories: %s, %d up-to-date, %d clean, %d error",
		len(results), changed, counts[UpToDate], counts[Clean], counts[Failed])
	if n := counts[LeftAlone]; n > 0 {
		fmt.Fprintf(w, ", %d left-alone", n)
	}
	fmt.Fprint(w, ".")
	if total := p.Clone + p.Fix + p.Commit + p.Push; total > 0 {
		fmt.Fprintf(w, " Time: git %.0f%% (clone %.1fs, commit %.1fs, push %.1fs), fixes %.0f%% (%.1fs).",
			100*(p.Clone+p.Commit+p.Push)/total, p.Clone, p.Commit, p.Push, 100*p.Fix/total, p.Fix)
	}
	fmt.Fprintln(w)
	prs := map[PRState]int{}
	for _, r := range results {
		if r.PR != nil {
			prs[r.PR.State]++
		}
	}
	if len(prs) > 0 {
		var parts []string
		for _, s := range []PRState{PROpened, PRUpdated, PRUnchanged, PRClosed, PRLeftAlone, PRDryRun} {
			if prs[s] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", prs[s], s))
			}
		}
		fmt.Fprintf(w, "Pull requests: %s.\n", strings.Join(parts, ", "))
	}
}
