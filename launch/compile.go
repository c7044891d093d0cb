package launch

import (
	"fmt"

	"github.com/loratune/loratune-fix/rewrite"
)

// LTF006 in launch configs: torch.compile switched on by a key or an
// option is deferred until training is known stable, as in Python.

const compileWhy = "defer it until training is known stable (a NaN must be fixed eagerly first)"

// compileOn is LTF006 for the compile keys of a YAML config.
// modeTurnsOn: torch_compile_mode and torch_compile_backend turn compile
// on by themselves (TrainingArguments: TRL and LLaMA-Factory configs);
// axolotl passes them only beside torch_compile.
func (p *pass) compileOn(modeTurnsOn bool) {
	m, text := p.f.top, p.f.text
	tc, dup := m.get("torch_compile")
	if s, ok := tc.scalar(text); ok && (tc.isTrue(text) || s.text == "auto") {
		start, end := pairSpan(tc)
		fd := rewrite.Finding{Start: start, End: end, Message: fmt.Sprintf("torch_compile: %s compiles the training model: %s", s.text, compileWhy)}
		if !dup {
			to := "false"
			if s.text != "auto" {
				to = falseLike(s.text)
			}
			fd.Fix = &rewrite.Fix{Message: "torch_compile: " + to + " (set it back once training is stable)", Edits: []rewrite.Edit{setScalar(s, to)}}
		}
		p.report("LTF006", fd)
		return
	}
	if !modeTurnsOn {
		return
	}
	for _, k := range []string{"torch_compile_mode", "torch_compile_backend"} {
		q, _ := m.get(k)
		if q == nil || q.isNull(text) {
			continue
		}
		start, end := pairSpan(q)
		// No edit: the only off value is null, which loses the user's
		// choice of mode; a comment added to a config is not ours to write.
		p.report("LTF006", rewrite.Finding{Start: start, End: end, Severity: rewrite.SeverityWarning,
			Message: k + " turns torch.compile on by itself (TrainingArguments), torch_compile: false or not: " + compileWhy + "; not fixed: comment it out (or set it to null) until then, and restore it once training is stable"})
	}
}

// shellCompile is LTF006 for --torch_compile (True, or bare) and
// --torch_compile_mode / --torch_compile_backend on a command line.
func (p *pass) shellCompile(c *command) {
	if f := getFlag(c.flags, "torch_compile"); f != nil && flagTrue(f) {
		fd := rewrite.Finding{Start: int(f.node.StartByte()), End: flagEnd(f), Message: "--torch_compile compiles the training model: " + compileWhy}
		switch {
		case f.value == nil:
			fd.Message += "; not fixed: a bare switch, remove it by hand (or pass --torch_compile False)"
		case f.value.shared:
			fd.Message += fmt.Sprintf("; not fixed: $%s has other uses", f.value.variable)
		default:
			if _, ok := boolean(f.value.text); ok {
				fd.Fix = &rewrite.Fix{Message: "--torch_compile " + falseLike(f.value.text), Edits: []rewrite.Edit{setWord(f.value, falseLike(f.value.text))}}
			} else {
				fd.Fix = &rewrite.Fix{Message: "--torch_compile False", Edits: []rewrite.Edit{setWord(f.value, "False")}}
			}
		}
		p.report("LTF006", fd)
		return
	}
	for _, k := range []string{"torch_compile_mode", "torch_compile_backend"} {
		if f := getFlag(c.flags, k); f != nil && f.value != nil {
			p.report("LTF006", rewrite.Finding{Start: int(f.node.StartByte()), End: flagEnd(f), Severity: rewrite.SeverityWarning,
				Message: "--" + k + " turns torch.compile on by itself (TrainingArguments): " + compileWhy + "; not fixed: drop it from the command until then (TrainingArguments turn compile on whenever it is set, --torch_compile False or not)"})
		}
	}
}
