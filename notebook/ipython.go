package notebook

import (
	"regexp"
	"strings"
)

// helpLine is IPython's help syntax: "?obj", "??obj", "obj?", "obj.attr??",
// "%magic?" (a name pattern with * too). No such line is Python.
var helpLine = regexp.MustCompile(`^[ \t]*(\?\??[^ \t?]|%{0,2}[A-Za-z_*][\w.*]*\?\??[ \t]*$)`)

// shellCell is a cell magic whose body is shell commands.
var shellCell = regexp.MustCompile(`^%%(bash|sh|script)\b`)

// Commands are the IPython line magics and shell lines of a code cell's
// source (every line of a %%bash, %%sh or %%script cell, with "!" put
// before it), each joined with the lines it continues onto through a
// trailing backslash, as IPython reads them: "%pip install a \\\n  b"
// is "%pip install a b". Cells of other cell magics (%%writefile) hold
// none.
func Commands(src string) []string {
	shell := shellCell.MatchString(src)
	body, _, ok := PythonBody(src)
	if shell {
		body, ok = src[len(SplitLines(src)[0]):], true
	}
	if !ok {
		return nil
	}
	var out []string
	var cur strings.Builder
	continuing := false
	for _, line := range SplitLines(body) {
		content := strings.TrimSpace(line)
		starts := !continuing && (shell && content != "" || magicLine.MatchString(line))
		if !continuing && !starts {
			continue
		}
		more := strings.HasSuffix(content, `\`)
		content = strings.TrimSuffix(content, `\`)
		switch {
		case continuing:
			cur.WriteString(" " + content)
		case shell:
			cur.WriteString("!" + content)
		default:
			cur.WriteString(content)
		}
		if continuing = more; !more {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}
