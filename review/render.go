package review

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/report"
)

// Request is the JSON body of GitHub's "create a review for a pull request"
// (POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews).
type Request struct {
	CommitID string    `json:"commit_id,omitempty"`
	Event    string    `json:"event"`
	Body     string    `json:"body"`
	Comments []Comment `json:"comments"`
}

// Comment is one review comment on the RIGHT side: on line, or on
// start_line..line.
type Comment struct {
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Side      string `json:"side"`
	StartLine int    `json:"start_line,omitempty"`
	StartSide string `json:"start_side,omitempty"`
	Body      string `json:"body"`
}

// fingerprintRE finds the hidden mark that makes a re-run skip what an
// earlier run posted.
var fingerprintRE = regexp.MustCompile(`<!-- loratune-fix:fingerprint=([0-9a-f]{32}) -->`)

// reviewMark is in every review body loratune-fix posts.
const reviewMark = "<!-- loratune-fix:review -->"

// Fingerprint identifies a suggestion across pushes: the rules, the path
// and the text it replaces, not its line numbers, which move.
func Fingerprint(codes []string, path, replaced string) string {
	sum := sha256.Sum256([]byte(strings.Join(codes, ",") + "\x00" + path + "\x00" + replaced))
	return hex.EncodeToString(sum[:16])
}

func mark(fp string) string { return "<!-- loratune-fix:fingerprint=" + fp + " -->" }

// Fingerprints returns the fingerprints marked in a comment or review body.
func Fingerprints(body string) []string {
	var out []string
	for _, m := range fingerprintRE.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func codesOf(ds []finding.Diag) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

// headline is one markdown line per finding: code with its doc link, name,
// severity and message.
func headline(d finding.Diag) string {
	return fmt.Sprintf("**[%s](%s) %s** (%s): %s", d.Code, report.RuleURL(d.Code), d.Name, d.Severity, d.Message)
}

func headlines(g *Group) string {
	if len(g.Findings) == 0 {
		return "A further fix that `loratune-fix fix` makes once the others are in (a later fix pass)."
	}
	var lines []string
	for _, d := range g.Findings {
		lines = append(lines, headline(d))
	}
	return strings.Join(lines, "\n")
}

// fence is a code fence longer than any run of backticks in text.
func fence(text string) string {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// suggestionText is a change's replacement as a suggestion block holds it:
// GitHub adds the last line ending back.
func suggestionText(c Change) string { return strings.TrimSuffix(c.New, "\n") }

// PendingComment is a comment with the fingerprint that marks it.
type PendingComment struct {
	Comment
	Fingerprint string
}

// BodyItem is one entry of the review body, with its fingerprint and the
// number of findings it shows.
type BodyItem struct {
	Text        string
	Fingerprint string
	Findings    int
}

// Comments are the review comments: a suggestion per change of each inside
// group of a Python file, a patch comment per inside group of a notebook, a
// plain comment per inside note.
func (r *Review) Comments() []PendingComment {
	var out []PendingComment
	for _, f := range r.Files {
		for _, g := range f.Groups {
			if !g.Inside {
				continue
			}
			if g.Notebook {
				c := g.Changes[0]
				fp := Fingerprint(codesOf(g.Findings), g.Path, c.Old)
				body := headlines(g) + "\n\nGitHub shows notebooks as JSON, so this fix comes as a patch (`git apply`), not a suggestion:\n\n" +
					fence(g.Patch) + "diff\n" + g.Patch + fence(g.Patch) + "\n" + mark(fp)
				out = append(out, PendingComment{comment(g.Path, c.From, c.To, body), fp})
				continue
			}
			for i, c := range g.Changes {
				fp := Fingerprint(codesOf(g.Findings), g.Path, c.Old)
				text := suggestionText(c)
				fn := fence(text)
				body := headlines(g) + "\n\n" + fn + "suggestion\n"
				if text != "" {
					body += text + "\n"
				}
				body += fn + "\n"
				if n := len(g.Changes); n > 1 {
					var others []string
					for k, o := range g.Changes {
						if k != i {
							others = append(others, lineRef(o.From, o.To))
						}
					}
					body += fmt.Sprintf("\nPart %d of %d of one fix: apply it together with the suggestion%s on %s of this file.\n",
						i+1, n, plural(n-1), strings.Join(others, ", "))
				}
				body += mark(fp)
				out = append(out, PendingComment{comment(g.Path, c.From, c.To, body), fp})
			}
		}
		for _, n := range f.Notes {
			if !n.Inside {
				continue
			}
			fp := Fingerprint([]string{n.Diag.Code}, n.Path, n.Text)
			body := headline(n.Diag) + "\n\n" + noFixReason(n.Diag) + "\n" + mark(fp)
			out = append(out, PendingComment{comment(n.Path, n.Line(), n.Line(), body), fp})
		}
	}
	return out
}

func noFixReason(d finding.Diag) string {
	if d.Fix != nil {
		return fmt.Sprintf("Its fix (%s) is marked unsafe: look at it with `loratune-fix fix --unsafe-fixes`.", d.Fix.Message)
	}
	return "No automatic fix: this one needs a look by hand."
}

func comment(path string, from, to int, body string) Comment {
	c := Comment{Path: path, Line: to, Side: "RIGHT", Body: body}
	if from < to {
		c.StartLine, c.StartSide = from, "RIGHT"
	}
	return c
}

func lineRef(from, to int) string {
	if from == to {
		return fmt.Sprintf("line %d", from)
	}
	return fmt.Sprintf("lines %d-%d", from, to)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// BodyItems are the entries of the review body: each fix of a finding on
// the changed lines that touches lines the pull request did not change,
// with its patch folded in a <details> block, and each such finding
// without a fix; then, folded once, the findings already in the file (on
// lines the pull request did not touch) with their fixes as one patch; then
// the files that could not be read. Every patch's context lines are lines
// no suggestion and no other patch changes, so each applies whether or not
// the suggestions were committed.
func (r *Review) BodyItems() []BodyItem {
	var out []BodyItem
	for _, f := range r.Files {
		for _, g := range f.Groups {
			if g.Inside || !g.New {
				continue
			}
			var old strings.Builder
			for _, c := range g.Changes {
				old.WriteString(c.Old)
			}
			fp := Fingerprint(codesOf(g.Findings), g.Path, old.String())
			summary := fmt.Sprintf("<code>%s</code> %s: %s", htmlEscape(g.Path), lineRef(g.Changes[0].From, g.Changes[len(g.Changes)-1].To), htmlEscape(summaryOf(g)))
			text := "<details><summary>" + summary + "</summary>\n\n" + headlines(g) + "\n\n" + afterLine(g.AfterSuggestions) +
				fence(g.Patch) + "diff\n" + g.Patch + fence(g.Patch) + "\n\n</details>\n" + mark(fp) + "\n"
			out = append(out, BodyItem{text, fp, len(g.Findings)})
		}
		for _, n := range f.Notes {
			if n.Inside || !n.New {
				continue
			}
			out = append(out, noteItem(n))
		}
	}
	if it, ok := r.alreadyItem(); ok {
		out = append(out, it)
	}
	for _, p := range r.Problems {
		fp := Fingerprint([]string{"error"}, p.Path, p.Message)
		out = append(out, BodyItem{fmt.Sprintf("- `%s` could not be reviewed: %s %s\n", p.Path, p.Message, mark(fp)), fp, 0})
	}
	return out
}

// afterNote and afterLine say that a patch applies once the suggestions
// are committed (its context holds a suggestion's text).
func afterNote(after bool) string {
	if after {
		return " (apply it after committing the suggestions: it edits the line just above one)"
	}
	return ""
}

func afterLine(after bool) string {
	if after {
		return "Apply this patch after committing the suggestions: it edits the line just above one.\n\n"
	}
	return ""
}

func noteItem(n Note) BodyItem {
	fp := Fingerprint([]string{n.Diag.Code}, n.Path, n.Text)
	loc := report.Location(n.Path, n.Diag)
	return BodyItem{fmt.Sprintf("- `%s`: %s %s %s\n", loc, headline(n.Diag), noFixReason(n.Diag), mark(fp)), fp, 1}
}

// alreadyItem lists the findings already in the file, each once, in one
// folded block, with one patch of all their fixes.
func (r *Review) alreadyItem() (BodyItem, bool) {
	var list, diff strings.Builder
	var fps []string
	n, after := 0, false
	for _, f := range r.Files {
		var cs []Change
		var lines []string
		for _, g := range f.Groups {
			if g.Inside || g.New {
				continue
			}
			after = after || g.AfterSuggestions
			cs = append(cs, g.Changes...)
			for _, d := range g.Findings {
				lines = append(lines, fmt.Sprintf("- `%s`: %s\n", report.Location(g.Path, d), headline(d)))
				fps = append(fps, d.Code+"\x00"+report.Location(g.Path, d))
				n++
			}
		}
		for _, nt := range f.Notes {
			if nt.Inside || nt.New {
				continue
			}
			lines = append(lines, fmt.Sprintf("- `%s`: %s %s\n", report.Location(nt.Path, nt.Diag), headline(nt.Diag), noFixReason(nt.Diag)))
			fps = append(fps, nt.Diag.Code+"\x00"+report.Location(nt.Path, nt.Diag))
			n++
		}
		for _, l := range lines {
			list.WriteString(l)
		}
		if len(cs) > 0 {
			others, suggested := otherChanges(f.Groups, func(g *Group) bool { return g.Inside || g.New })
			p, a := patch(f.Path, f.before, cs, others, suggested)
			diff.WriteString(p)
			after = after || a
		}
	}
	if n == 0 {
		return BodyItem{}, false
	}
	fp := Fingerprint([]string{"already"}, "", strings.Join(fps, "\x00"))
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>%d finding%s already in the file, on lines this pull request did not touch</summary>\n\n%s",
		n, plural(n), list.String())
	if d := diff.String(); d != "" {
		fn := fence(d)
		fmt.Fprintf(&b, "\nTheir fixes in one patch%s:\n\n%sdiff\n%s%s\n", afterNote(after), fn, d, fn)
	}
	b.WriteString("\n</details>\n" + mark(fp) + "\n")
	return BodyItem{b.String(), fp, n}, true
}

func summaryOf(g *Group) string {
	if len(g.Findings) == 0 {
		return "a later fix pass"
	}
	var parts []string
	for _, d := range g.Findings {
		parts = append(parts, d.Code+" "+d.Name)
	}
	return strings.Join(parts, ", ")
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// Counts are a review's findings by where the body says they are; each
// finding is counted once: Comments + Below + Already = Findings.
type Counts struct {
	Findings int
	Comments int // in comments on the changed lines
	Below    int // in the body: on the changed lines, fix not a suggestion
	Already  int // in the body, folded: on lines the pull request did not touch
	// Failing are the errors and warnings (info notes aside) on the changed
	// lines; FailingAll those anywhere in the changed files.
	Failing, FailingAll int
}

// Counts counts the review's findings.
func (r *Review) Counts() Counts {
	var c Counts
	count := func(ds []finding.Diag, inside, isNew bool) {
		for _, d := range ds {
			c.Findings++
			switch {
			case inside:
				c.Comments++
			case isNew:
				c.Below++
			default:
				c.Already++
			}
			if d.Severity != finding.SeverityInfo {
				c.FailingAll++
				if inside || isNew {
					c.Failing++
				}
			}
		}
	}
	for _, f := range r.Files {
		for _, g := range f.Groups {
			count(g.Findings, g.Inside, g.New)
		}
		for _, n := range f.Notes {
			count([]finding.Diag{n.Diag}, n.Inside, n.New)
		}
	}
	return c
}

// Body assembles the review body from items (all of BodyItems, or the
// first of them that fit GitHub's limit) with a count of the findings in
// one unit: those in comments, below, already in the file, and not shown
// add up to all.
func Body(r *Review, items []BodyItem) string {
	var b strings.Builder
	b.WriteString(reviewMark + "\n")
	c := r.Counts()
	shown := 0
	for _, it := range items {
		shown += it.Findings
	}
	at := ""
	if r.CommitID != "" {
		at = fmt.Sprintf(" (at %.7s)", r.CommitID)
	}
	if c.Findings == 0 {
		fmt.Fprintf(&b, "**loratune-fix** found no findings in the changed files%s.", at)
	} else {
		parts := []string{fmt.Sprintf("%d in comments on the changed lines", c.Comments)}
		if c.Below > 0 {
			parts = append(parts, fmt.Sprintf("%d below whose fix reaches lines this pull request did not change, or that have no suggestion", c.Below))
		}
		if c.Already > 0 {
			parts = append(parts, fmt.Sprintf("%d already in the file, on lines it did not touch (folded below)", c.Already))
		}
		if hidden := c.Below + c.Already - shown; hidden > 0 {
			parts = append(parts, fmt.Sprintf("%d not shown here for GitHub's size limit (`loratune-fix check` lists them)", hidden))
		}
		last := len(parts) - 1
		list := strings.Join(parts[:last], ", ")
		if last > 0 {
			list += ", and "
		}
		fmt.Fprintf(&b, "**loratune-fix** found %d finding%s in the changed files%s: %s.", c.Findings, plural(c.Findings), at, list+parts[last])
	}
	if n := len(r.Problems); n > 0 {
		fmt.Fprintf(&b, " %d changed file%s could not be read (below).", n, plural(n))
	}
	b.WriteString("\n")
	if c.Below+c.Already > 0 && len(items) > 0 {
		b.WriteString("\nEach patch below applies with `git apply`, before or after the suggestions are committed unless it says otherwise; `loratune-fix fix --write` applies every fix.\n")
	}
	if len(items) > 0 {
		b.WriteString("\n")
	}
	for _, it := range items {
		b.WriteString(it.Text)
	}
	return b.String()
}

// Request builds the whole review as one request body (no batching, no
// fingerprints skipped): what --format github-review prints.
func (r *Review) Request() Request {
	req := Request{CommitID: r.CommitID, Event: "COMMENT", Comments: []Comment{}}
	pending := r.Comments()
	for _, c := range pending {
		req.Comments = append(req.Comments, c.Comment)
	}
	req.Body = Body(r, r.BodyItems())
	return req
}
