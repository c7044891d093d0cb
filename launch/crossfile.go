package launch

import (
	"fmt"

	"github.com/loratune/loratune-fix/rewrite"
)

// Across files: a launcher's options meet the DeepSpeed and accelerate
// configs it names. A contradiction stops the run before step 0; it is
// reported on the launcher's line, and fixed in the DeepSpeed file
// (enabled: "auto" follows TrainingArguments) by that file's own finding.

// readConfig reads a config a launch file names, nil when it cannot.
func (p *pass) readConfig(name string) *file {
	if name == "" || p.opts.Read == nil || !Candidate(name) {
		return nil
	}
	data, err := p.opts.Read(name)
	if err != nil {
		return nil
	}
	return read(name, trimBOM(data))
}

// precision is what a DeepSpeed config fixes: "bf16", "fp16", "none"
// (both explicitly off) or "" (auto, absent or unreadable).
func dsPrecision(f *file) (mode, why string) {
	if f == nil || f.kind != DeepSpeed {
		return "", ""
	}
	for _, block := range []string{"bf16", "fp16"} {
		if q := f.top.lookup(block + ".enabled"); q.isTrue(f.text) {
			return block, block + ".enabled: true"
		}
	}
	bf, fp := f.top.lookup("bf16.enabled"), f.top.lookup("fp16.enabled")
	if bf.isFalse(f.text) && fp.isFalse(f.text) {
		return "none", "bf16.enabled and fp16.enabled false"
	}
	return "", ""
}

// crossFile checks a command's precision options against the DeepSpeed
// config it passes (--deepspeed) and the accelerate config it launches
// with (--config_file, --mixed_precision, --deepspeed_config_file).
func (p *pass) crossFile(c *command) {
	ds := getFlag(c.flags, "deepspeed")
	if ds == nil {
		ds = getFlag(c.pre, "deepspeed_config_file")
	}
	dsFile := p.readConfig(ds.path())
	defer dsFile.close()
	var acc *file
	if cf := getFlag(c.pre, "config_file"); cf != nil && c.launcher == "accelerate launch" {
		acc = p.readConfig(cf.path())
		defer acc.close()
	}
	if dsFile == nil && acc != nil && acc.kind == Accelerate {
		if q := acc.top.lookup("deepspeed_config.deepspeed_config_file"); q != nil {
			if s, ok := q.scalar(acc.text); ok {
				dsFile = p.readConfig(s.text)
				defer dsFile.close()
			}
		}
	}
	mode, why := dsPrecision(dsFile)
	if mode != "" {
		for _, amp := range []string{"bf16", "fp16"} {
			f := getFlag(c.flags, amp)
			if f == nil || f.value != nil && !f.value.known {
				continue
			}
			on := flagTrue(f)
			if on == (mode == amp) {
				continue
			}
			written := "--" + amp
			if f.value != nil {
				written += " " + f.value.text
			}
			p.reportStop("LTF001", rewrite.Finding{Start: int(f.node.StartByte()), End: flagEnd(f),
				Message: fmt.Sprintf("%s while %s sets %s: the Trainer stops before step 0 (\"Please correct the following DeepSpeed config values that mismatch TrainingArguments\"); set enabled to \"auto\" there, so that it follows --%s", written, dsFile.name, why, amp)})
		}
	}
	// accelerate's mixed precision against the DeepSpeed config.
	mp, mpAt := "", -1
	mpEnd := 0
	if f := getFlag(c.pre, "mixed_precision"); f != nil && f.value != nil && f.value.known {
		mp, mpAt, mpEnd = f.value.text, int(f.node.StartByte()), flagEnd(f)
	} else if acc != nil && acc.kind == Accelerate {
		if q, _ := acc.top.get("mixed_precision"); q != nil {
			if s, ok := q.scalar(acc.text); ok {
				mp = s.text
				if cf := getFlag(c.pre, "config_file"); cf != nil {
					mpAt, mpEnd = int(cf.node.StartByte()), flagEnd(cf)
				}
			}
		}
	}
	if mpAt >= 0 && (mode == "bf16" || mode == "fp16") && (mp == "bf16" || mp == "fp16") && mp != mode {
		p.reportStop("LTF001", rewrite.Finding{Start: mpAt, End: mpEnd,
			Message: fmt.Sprintf("accelerate's mixed_precision %s while %s sets %s: accelerate refuses to start (\"--mixed_precision cannot be set to %s when %s is set in the DeepSpeed config file\"); make them agree", mp, dsFile.name, why, mp, mode)})
	}
}

// accelerate: an accelerate config against the DeepSpeed config it names.
func (p *pass) accelerate() {
	m, text := p.f.top, p.f.text
	mpPair, _ := m.get("mixed_precision")
	s, ok := mpPair.scalar(text)
	if !ok || s.text != "bf16" && s.text != "fp16" {
		return
	}
	q := m.lookup("deepspeed_config.deepspeed_config_file")
	name, ok := q.scalar(text)
	if !ok {
		return
	}
	ds := p.readConfig(name.text)
	defer ds.close()
	mode, why := dsPrecision(ds)
	if (mode == "bf16" || mode == "fp16") && mode != s.text {
		start, end := pairSpan(mpPair)
		p.reportStop("LTF001", rewrite.Finding{Start: start, End: end,
			Message: fmt.Sprintf("mixed_precision: %s while %s sets %s: accelerate refuses to start (\"--mixed_precision cannot be set to %s when %s is set in the DeepSpeed config file\"); make them agree (\"auto\" in the DeepSpeed file follows the Trainer)", s.text, name.text, why, s.text, mode)})
	}
}

// configDeepSpeed checks a training YAML's bf16/fp16 keys against the
// DeepSpeed config its deepspeed key names: explicit values that disagree
// stop the run before step 0.
func (p *pass) configDeepSpeed() {
	m, text := p.f.top, p.f.text
	dsPair, _ := m.get("deepspeed")
	name, ok := dsPair.scalar(text)
	if !ok {
		return
	}
	ds := p.readConfig(name.text)
	defer ds.close()
	mode, why := dsPrecision(ds)
	if mode == "" {
		return
	}
	for _, amp := range []string{"bf16", "fp16"} {
		q, _ := m.get(amp)
		if q == nil || !q.isTrue(text) && !q.isFalse(text) {
			continue // absent, or auto: decided at run time
		}
		if on := q.isTrue(text); on != (mode == amp) {
			s, _ := q.scalar(text)
			start, end := pairSpan(q)
			p.reportStop("LTF001", rewrite.Finding{Start: start, End: end,
				Message: fmt.Sprintf("%s: %s while %s sets %s: the Trainer stops before step 0 (\"Please correct the following DeepSpeed config values that mismatch TrainingArguments\"); set enabled to \"auto\" there, so that it follows %s", amp, s.text, name.text, why, amp)})
		}
	}
}
