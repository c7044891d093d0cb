package notebook

import (
	"regexp"
	"strings"

	"github.com/loratune/loratune-fix/finding"
)

// Virtual is the Python source the engine sees for a notebook: the code
// cells joined in order, so that reasoning spans cells (imports in one, the
// load in another). Between two cells stands a frozen "\n"; each IPython
// line magic or shell line is replaced by a frozen statement of the same
// length ("pass#..."), so byte offsets map back to the cell unchanged.
//
// A cell that starts with a cell magic whose body is Python (%%time,
// %%timeit, %%capture) contributes its body; other cell magics (%%bash,
// %%writefile, ...) and cells that do not parse on their own contribute
// nothing.
type Virtual struct {
	Text []byte
	// Frozen are the spans no fix may touch: the masks and the separators,
	// which are walls (a fix spans one cell).
	Frozen []finding.Span
	segs   []segment
}

// segment is one cell's part of the virtual text.
type segment struct {
	cell       *Cell
	start, end int      // [start, end) in Text, the owned newline included
	header     int      // bytes of the cell source before the segment: a %%time line
	ownedNL    bool     // a "\n" added because the cell source lacks a final one
	sep        int      // index in Frozen of the separator before it, -1 for the first
	masks      []int    // indexes in Frozen of its masks
	orig       []string // the masked lines' original bytes, parallel to masks
}

// pythonCellMagics run their body as Python.
var pythonCellMagics = map[string]bool{"time": true, "timeit": true, "capture": true, "prun": true}

var (
	// A line magic (%pip, %%cell on a later line is not a magic), a shell
	// line (!pip), or an assignment from one (files = !ls). "!=" and "% x"
	// at a line start are Python operators continuing a bracket.
	magicLine = regexp.MustCompile(`^[ \t]*(%%?[A-Za-z_]|![^=]|[A-Za-z_][\w.]*[ \t]*=[ \t]*(!|%[A-Za-z_]))`)
	cellMagic = regexp.MustCompile(`^%%([A-Za-z_]\w*)`)
)

// Build makes the virtual source of nb, leaving out the cells in skip
// (keyed by Cell.Index).
func Build(nb *Notebook, skip map[int]bool) *Virtual {
	v := &Virtual{}
	var b strings.Builder
	for _, c := range nb.Code() {
		if skip[c.Index] {
			continue
		}
		body, header, ok := PythonBody(c.Source)
		if !ok || strings.TrimSpace(body) == "" {
			continue
		}
		masked, spans := maskMagics(body)
		if endsInContinuation(masked) {
			// Not Python on its own (CPython: unexpected EOF), and joined to
			// the next cell it would run on into it.
			continue
		}
		seg := segment{cell: c, header: header, sep: -1}
		if len(v.segs) > 0 {
			at := b.Len()
			b.WriteByte('\n')
			seg.sep = len(v.Frozen)
			v.Frozen = append(v.Frozen, finding.Span{Start: at, End: at + 1, Wall: true})
		}
		seg.start = b.Len()
		for _, sp := range spans {
			seg.masks = append(seg.masks, len(v.Frozen))
			seg.orig = append(seg.orig, body[sp.Start:sp.End])
			v.Frozen = append(v.Frozen, finding.Span{Start: seg.start + sp.Start, End: seg.start + sp.End})
		}
		b.WriteString(masked)
		if !strings.HasSuffix(body, "\n") {
			b.WriteByte('\n')
			seg.ownedNL = true
		}
		seg.end = b.Len()
		v.segs = append(v.segs, seg)
	}
	v.Text = []byte(b.String())
	return v
}

// endsInContinuation reports a last line that ends in a line-continuation
// backslash (a comment's backslash aside; a line holding "#" anywhere is
// taken for a comment, which at worst keeps a broken cell in).
func endsInContinuation(body string) bool {
	body = strings.TrimRight(body, " \t\r\n")
	last := body[strings.LastIndexByte(body, '\n')+1:]
	return strings.HasSuffix(last, "\\") && !strings.Contains(last, "#")
}

// PythonBody is the part of a code cell's source that is Python, with the
// number of bytes before it; ok is false for a cell magic whose body is
// another language.
func PythonBody(src string) (body string, header int, ok bool) {
	m := cellMagic.FindStringSubmatch(src)
	if m == nil {
		return src, 0, true
	}
	if !pythonCellMagics[m[1]] {
		return "", 0, false
	}
	nl := strings.IndexByte(src, '\n')
	if nl < 0 {
		return "", len(src), true
	}
	return src[nl+1:], nl + 1, true
}

// maskMagics replaces each magic, shell or help line (and the lines it
// continues onto with a trailing backslash, indent included) by Python of
// the same byte length: "pass" padded with a comment keeps a block that
// holds only the magic valid; a line too short for it, or a continuation,
// becomes a comment.
func maskMagics(body string) (string, []finding.Span) {
	var spans []finding.Span
	out := []byte(body)
	off := 0
	continued := false
	for _, line := range SplitLines(body) {
		content := strings.TrimRight(line, "\r\n")
		indent := len(content) - len(strings.TrimLeft(content, " \t"))
		n := len(content) - indent
		if n > 0 && (continued || magicLine.MatchString(content) || helpLine.MatchString(content)) {
			if continued {
				// A continuation's indent is the command's, not Python's:
				// the whole line is masked, so that no indent unit is read
				// from it.
				indent, n = 0, len(content)
			}
			fill := "#" + strings.Repeat(" ", n-1)
			if !continued && n >= 4 {
				fill = "pass" + ("#" + strings.Repeat(" ", n-4))[:n-4]
			}
			copy(out[off+indent:], fill)
			spans = append(spans, finding.Span{Start: off + indent, End: off + len(content)})
			continued = strings.HasSuffix(content, "\\")
		} else {
			continued = false
		}
		off += len(line)
	}
	return string(out), spans
}

// Cells lists the cells that made it into the virtual source.
func (v *Virtual) Cells() []*Cell {
	out := make([]*Cell, len(v.segs))
	for i, s := range v.segs {
		out[i] = s.cell
	}
	return out
}

// CellText is the virtual text of one cell (masks included), for a cell
// by cell parse check.
func (v *Virtual) CellText(c *Cell) []byte {
	for _, s := range v.segs {
		if s.cell == c {
			return v.Text[s.start:s.end]
		}
	}
	return nil
}

func (v *Virtual) segAt(off int) int {
	for i, s := range v.segs {
		if off >= s.start && off <= s.end {
			return i
		}
	}
	return -1
}

// Locate maps an offset of the virtual text to a cell and a byte offset in
// that cell's source. ok is false on a separator.
func (v *Virtual) Locate(off int) (cell *Cell, at int, ok bool) {
	i := v.segAt(off)
	if i < 0 {
		return nil, 0, false
	}
	s := v.segs[i]
	return s.cell, s.header + min(off-s.start, s.bodyLen()), true
}

func (s segment) bodyLen() int {
	n := s.end - s.start
	if s.ownedNL {
		n--
	}
	return n
}

// MapFix maps the edits of fd's fix on the virtual text into edits of its
// cell's source. ok is false when the engine does not apply the fix (see
// finding.FrozenRefuses): it touches a magic line or a cell boundary, spans
// two cells or lies in another cell than the finding.
func (v *Virtual) MapFix(fd *finding.Finding) (cell *Cell, edits []finding.Edit, ok bool) {
	if fd.Fix == nil || finding.FrozenRefuses(fd, v.Frozen) {
		return nil, nil, false
	}
	seg := -1
	for _, e := range fd.Fix.Edits {
		i, j := v.segAt(e.Start), v.segAt(e.End)
		if i < 0 || i != j || seg >= 0 && i != seg {
			return nil, nil, false
		}
		seg = i
	}
	if seg < 0 {
		return nil, nil, false
	}
	s := v.segs[seg]
	body := s.bodyLen()
	// cut is where a deletion of the cell's last lines starts, or -1. Once
	// the newline the virtual text added is taken off, that deletion takes
	// the newline before it, and an insertion at cut lands after what
	// stays: an insertion after the last line (else it would fall inside
	// the deletion).
	cut := -1
	for _, e := range fd.Fix.Edits {
		if s.ownedNL && e.End == s.end && e.NewText == "" && e.Start > s.start && v.Text[e.Start-1] == '\n' {
			cut = e.Start
		}
	}
	for _, e := range fd.Fix.Edits {
		ce := finding.Edit{Start: s.header + min(e.Start-s.start, body), End: s.header + min(e.End-s.start, body), NewText: e.NewText}
		switch {
		case cut >= 0 && e.Start == cut && e.End == cut:
			ce.Start, ce.End = ce.Start-1, ce.Start-1
			ce.NewText = "\n" + strings.TrimSuffix(e.NewText, "\n")
		case cut >= 0 && e.Start == cut:
			ce.Start-- // the deletion of the last lines takes the newline before them
		case s.ownedNL && e.End == s.end:
			// The edit reaches past the cell's last byte, onto the newline
			// the virtual text added: write what the cell gets once that
			// newline is taken off again.
			if e.Start == e.End { // an insertion after the last line
				ce.NewText = "\n" + strings.TrimSuffix(e.NewText, "\n")
			} else {
				ce.NewText = strings.TrimSuffix(e.NewText, "\n")
			}
		}
		edits = append(edits, ce)
	}
	return s.cell, edits, true
}

// Split maps a fixed virtual text back to cell sources, given where the
// frozen spans lie in it (the engine's Result.Frozen). The magic lines get their
// original bytes back. Only the cells whose source changed are returned.
func (v *Virtual) Split(out []byte, frozen []finding.Span) map[int]string {
	changed := map[int]string{}
	for i, s := range v.segs {
		from := 0
		if s.sep >= 0 {
			from = frozen[s.sep].End
		}
		to := len(out)
		if i+1 < len(v.segs) {
			to = frozen[v.segs[i+1].sep].Start
		}
		text := []byte(string(out[from:to]))
		for k, m := range s.masks {
			copy(text[frozen[m].Start-from:], s.orig[k])
		}
		body := string(text)
		if s.ownedNL {
			body = strings.TrimSuffix(body, "\n")
		}
		src := s.cell.Source[:s.header] + body
		if src != s.cell.Source {
			changed[s.cell.Index] = src
		}
	}
	return changed
}

var writeFile = regexp.MustCompile(`^%%(?:writefile|file)(?:[ \t]+-a)?[ \t]+(\S+\.py)[ \t]*\r?\n`)

// ScriptCell reports a cell that writes a Python file (%%writefile
// train.py): its body is a script of its own, run later by !python, not
// code of the notebook. It returns the body, the bytes before it and the
// file name.
func ScriptCell(c *Cell) (body string, header int, name string, ok bool) {
	m := writeFile.FindStringSubmatchIndex(c.Source)
	if m == nil || c.Type != "code" {
		return "", 0, "", false
	}
	return c.Source[m[1]:], m[1], c.Source[m[2]:m[3]], true
}
