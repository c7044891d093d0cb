package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/loratune/loratune-fix/finding"
)

// GitHub writes one workflow command per finding, which GitHub Actions shows
// as an annotation on the file:
// ::error file=train.py,line=40,col=20,endLine=40,endColumn=38,title=LTF003::training-device-map: message
func GitHub(w io.Writer, f *finding.FileResult) {
	for _, d := range f.Diags {
		props := []string{"file=" + escapeProperty(f.Path)}
		msg := d.Message
		if d.Cell > 0 {
			// Lines count within the cell; the annotation stays on the file.
			msg = fmt.Sprintf("cell %d, line %d: %s", d.Cell, d.StartPos.Line, msg)
		} else {
			props = append(props,
				fmt.Sprintf("line=%d", d.StartPos.Line), fmt.Sprintf("col=%d", d.StartPos.Column),
				fmt.Sprintf("endLine=%d", d.EndPos.Line), fmt.Sprintf("endColumn=%d", d.EndPos.Column))
		}
		props = append(props, "title="+escapeProperty(d.Code))
		msg = d.Name + ": " + msg
		if d.Fix != nil {
			apply := "loratune-fix fix --write"
			if d.Fix.Applicability == finding.Unsafe {
				apply += " --unsafe-fixes"
			}
			msg += " (fix: " + d.Fix.Message + "; run " + apply + ")"
		}
		fmt.Fprintf(w, "::%s %s::%s\n", annotationLevel(d.Severity), strings.Join(props, ","), escapeData(msg))
	}
}

func annotationLevel(sev finding.Severity) string {
	switch sev {
	case finding.SeverityError:
		return "error"
	case finding.SeverityWarning:
		return "warning"
	}
	return "notice"
}

// escapeData and escapeProperty follow the runner's rules for workflow
// commands (actions/toolkit, command.ts).
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
