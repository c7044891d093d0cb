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

// BodyItem is one entry of the review body, with its fingerprint.
type BodyItem struct {
	Text        string
	Fingerprint string
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

// BodyItems are the entries of the review body: each fix that touches
// lines the pull request did not change, with its patch folded in a
// <details> block, and each finding without a fix off the changed lines.
func (r *Review) BodyItems() []BodyItem {
	var out []BodyItem
	for _, f := range r.Files {
		for _, g := range f.Groups {
			if g.Inside {
				continue
			}
			var old strings.Builder
			for _, c := range g.Changes {
				old.WriteString(c.Old)
			}
			fp := Fingerprint(codesOf(g.Findings), g.Path, old.String())
			summary := fmt.Sprintf("<code>%s</code> %s: %s", htmlEscape(g.Path), lineRef(g.Changes[0].From, g.Changes[len(g.Changes)-1].To), htmlEscape(summaryOf(g)))
			text := "<details><summary>" + summary + "</summary>\n\n" + headlines(g) + "\n\n" +
				fence(g.Patch) + "diff\n" + g.Patch + fence(g.Patch) + "\n\n</details>\n" + mark(fp) + "\n"
			out = append(out, BodyItem{text, fp})
		}
		for _, n := range f.Notes {
			if n.Inside {
				continue
			}
			fp := Fingerprint([]string{n.Diag.Code}, n.Path, n.Text)
			loc := report.Location(n.Path, n.Diag)
			text := fmt.Sprintf("- `%s`: %s %s %s\n", loc, headline(n.Diag), noFixReason(n.Diag), mark(fp))
			out = append(out, BodyItem{text, fp})
		}
	}
	for _, p := range r.Problems {
		fp := Fingerprint([]string{"error"}, p.Path, p.Message)
		out = append(out, BodyItem{fmt.Sprintf("- `%s` could not be reviewed: %s %s\n", p.Path, p.Message, mark(fp)), fp})
	}
	return out
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

// Body assembles the review body from items (all of BodyItems, or those
// not posted before) with a count of what the review holds.
func Body(r *Review, comments int, items []BodyItem) string {
	var b strings.Builder
	b.WriteString(reviewMark + "\n")
	findings := 0
	for _, f := range r.Files {
		for _, g := range f.Groups {
			findings += len(g.Findings)
		}
		findings += len(f.Notes)
	}
	fmt.Fprintf(&b, "**loratune-fix** found %d finding%s in the changed files: %d comment%s on the changed lines",
		findings, plural(findings), comments, plural(comments))
	if len(items) == 0 {
		b.WriteString(".\n")
		return b.String()
	}
	fmt.Fprintf(&b, ", and %d below: fixes that touch lines this pull request did not change, so GitHub cannot take them as suggestions "+
		"(apply a patch with `git apply`, or all fixes with `loratune-fix fix --write`), findings without a fix, and files that could not be read.\n\n", len(items))
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
	req.Body = Body(r, len(pending), r.BodyItems())
	return req
}
