// Package launch reads the files that launch a training run: LLaMA-Factory,
// axolotl and TRL CLI YAML configs, accelerate configs, DeepSpeed JSON and
// shell launchers. Each is recognised by its content (its keys, or the
// command it runs), not by its name, and gets the rules of the engine
// where the setting lives in that file: the same codes, findings and
// byte-range fixes as for Python, comments, quoting, key order, anchors
// and indentation kept. It depends on the engine's value types and rule
// selection, never on the command line or the file walk: the reading of
// other files (a launcher's script, a config's DeepSpeed file) comes in
// through Options.Read.
package launch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/bash"
	"github.com/smacker/go-tree-sitter/yaml"

	"github.com/loratune/loratune-fix/rewrite"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
	"github.com/loratune/loratune-fix/version"
)

// Kind is what a launch file is, told by its content.
type Kind string

const (
	LlamaFactory Kind = "LLaMA-Factory config"
	Axolotl      Kind = "axolotl config"
	TRLConfig    Kind = "TRL CLI config"
	Accelerate   Kind = "accelerate config"
	DeepSpeed    Kind = "DeepSpeed config"
	Shell        Kind = "shell launcher"
)

// Candidate reports whether a file name may hold a launch config: YAML,
// JSON or a shell script. Its content decides whether it is one.
func Candidate(name string) bool {
	switch path.Ext(name) {
	case ".yaml", ".yml", ".json", ".sh", ".bash":
		return true
	}
	return false
}

// MaxSize is the size of the largest launch file read: configs and
// launchers are small, and a larger YAML or JSON file is data.
const MaxSize = 1 << 20

func isShellName(name string) bool { return path.Ext(name) == ".sh" || path.Ext(name) == ".bash" }

// markers are byte strings one of which every launch file of a kind holds:
// a file with none is not parsed (most YAML and JSON of a repository).
var (
	configMarkers = [][]byte{[]byte("finetuning_type"), []byte("base_model"), []byte("model_name_or_path"),
		[]byte("mixed_precision"), []byte("distributed_type"), []byte("zero_optimization"), []byte("bf16"), []byte("fp16"),
		[]byte("pure_bf16"), []byte("flash_attn"), []byte("do_train")}
	shellMarkers = [][]byte{[]byte("python"), []byte("torchrun"), []byte("accelerate"), []byte("deepspeed"),
		[]byte("llamafactory-cli"), []byte("lmf"), []byte("axolotl"), []byte("trl"), []byte("swift")}
)

func mayBe(name string, text []byte) bool {
	ms := configMarkers
	if isShellName(name) {
		ms = shellMarkers
	}
	for _, m := range ms {
		if bytes.Contains(text, m) {
			return true
		}
	}
	return false
}

// Options are what one run over a launch file needs.
type Options struct {
	Engine *rewrite.Engine
	// Versions finds the pins that govern the file; called only for a
	// launch file (nil: none known).
	Versions func() version.Versions
	Fix      bool
	// Read reads a file the launch file names (a script, a DeepSpeed or
	// accelerate config), by the path written in it; nil reads nothing.
	Read func(name string) ([]byte, error)
	vs   version.Versions
}

// file is one parsed launch file.
type file struct {
	name  string
	kind  Kind
	text  []byte
	json  bool
	src   *semantic.Source
	tree  *sitter.Tree
	lang  *sitter.Language
	names *syntree.Language
	top   *mapping // YAML and JSON
	sh    *shell   // shell
}

func (f *file) close() {
	if f != nil && f.tree != nil {
		f.tree.Close()
	}
}

var bom = []byte("\xef\xbb\xbf")

func trimBOM(text []byte) []byte { return bytes.TrimPrefix(text, bom) }

// read parses text as the launch file name may be; nil when it is not one
// (wrong content, a syntax error, several YAML documents).
func read(name string, text []byte) *file {
	if !Candidate(name) || len(text) > MaxSize || !mayBe(name, text) {
		return nil
	}
	f := &file{name: name, text: text, json: path.Ext(name) == ".json"}
	if f.json && !json.Valid(text) {
		return nil
	}
	p := sitter.NewParser()
	defer p.Close()
	f.lang, f.names = yaml.GetLanguage(), yamlNames
	if isShellName(name) {
		f.lang, f.names = bash.GetLanguage(), bashNames
	}
	p.SetLanguage(f.lang)
	tree, err := p.ParseCtx(context.Background(), nil, text)
	if err != nil {
		return nil
	}
	f.tree = tree
	root := tree.RootNode()
	if root.HasError() {
		f.close()
		return nil
	}
	if isShellName(name) {
		f.sh = readShell(root, text)
		if len(f.sh.commands) > 0 {
			f.kind = Shell
		}
	} else if f.top = topMapping(root, text); f.top != nil {
		f.kind = kindOf(f.top, text)
	}
	if f.kind == "" {
		f.close()
		return nil
	}
	f.src = semantic.NewSource(text)
	return f
}

// kindOf tells a config's kind by its keys.
func kindOf(m *mapping, text []byte) Kind {
	has := func(keys ...string) bool {
		for _, k := range keys {
			if p, _ := m.get(k); p != nil {
				return true
			}
		}
		return false
	}
	precisionBlock := func(k string) bool {
		p, _ := m.get(k)
		return p != nil && p.sub != nil && p.sub.lookup("enabled") != nil
	}
	switch {
	case has("zero_optimization") || precisionBlock("bf16") || precisionBlock("fp16"):
		return DeepSpeed
	case has("distributed_type", "compute_environment"):
		return Accelerate
	case has("finetuning_type", "pure_bf16", "flash_attn", "lora_target", "cutoff_len", "quantization_bit") || has("stage") && has("template"):
		return LlamaFactory
	case has("base_model") && has("datasets", "adapter", "sequence_len", "micro_batch_size", "sample_packing"):
		return Axolotl
	case has("model_name_or_path") && has("use_peft", "dataset_name"):
		return TRLConfig
	}
	return ""
}

// Recognise says what kind of launch file text is, "" for none.
func Recognise(name string, text []byte) Kind {
	f := read(name, trimBOM(text))
	defer f.close()
	if f == nil {
		return ""
	}
	return f.kind
}

// Run checks (and with Fix, fixes) one launch file. ok is false when the
// text is not a launch file: then nothing was done and res is nil.
// Offsets are in text as given (a byte order mark included).
func Run(opts Options, name string, text []byte) (res *rewrite.Result, ok bool, err error) {
	if err := rewrite.TextError(text); err != nil {
		return nil, false, nil
	}
	body := trimBOM(text)
	shift := len(text) - len(body)
	f := read(name, body)
	if f == nil {
		return nil, false, nil
	}
	if opts.Versions != nil {
		opts.vs = opts.Versions()
	}
	// A check runs the fix passes too, without keeping the output: each
	// finding then says what fix --write does with it, as for Python. The
	// loop closes f.
	res, err = rewrite.FixLoop[*file](opts.Engine, front{opts, name, f.kind}, body, f, nil)
	if err != nil {
		return nil, true, err
	}
	if out := res.Output; opts.Fix && !bytes.Equal(out, body) {
		res.Output = append(append([]byte{}, text[:shift]...), out...)
		res.Changed = true
	} else {
		res.Output = text
	}
	for i := range res.Findings {
		shiftFinding(&res.Findings[i], shift)
	}
	return res, true, nil
}

func shiftFinding(fd *rewrite.Finding, n int) {
	if n == 0 {
		return
	}
	fd.Start += n
	fd.End += n
	if fd.Fix != nil {
		fx := *fd.Fix
		fx.Edits = append([]rewrite.Edit(nil), fx.Edits...)
		for i := range fx.Edits {
			fx.Edits[i].Start += n
			fx.Edits[i].End += n
		}
		fd.Fix = &fx
	}
}

// analyse runs the selected rules over f: findings in source order, with
// positions, silenced ones dropped.
func analyse(opts Options, f *file) []rewrite.Finding {
	p := &pass{opts: opts, f: f, vs: opts.Engine.Governing(opts.vs)}
	switch f.kind {
	case LlamaFactory:
		p.llamaFactory()
	case Axolotl:
		p.axolotl()
	case TRLConfig:
		p.trlConfig()
	case DeepSpeed:
		p.deepSpeed()
	case Accelerate:
		p.accelerate()
	case Shell:
		p.shell()
	}
	fs := rewrite.Suppress(f.src, syntree.New(f.tree, f.names).Root(), p.findings)
	rewrite.SortFindings(fs)
	for i := range fs {
		fs[i].StartPos, fs[i].EndPos = f.src.Position(fs[i].Start), f.src.Position(fs[i].End)
	}
	return fs
}

// The grammars' names, for the Go copy of a tree that Suppress reads.
var (
	yamlNames = syntree.NewLanguage(yaml.GetLanguage())
	bashNames = syntree.NewLanguage(bash.GetLanguage())
)

// front is the fix loop's launch file (rewrite.FixLoop): the rules of
// its kind; an output verifies when it reads again as the same kind of
// launch file (and as JSON where it was JSON).
type front struct {
	opts Options
	name string
	kind Kind
}

func (fe front) Analyse(text []byte, f *file) ([]rewrite.Finding, *file, error) {
	if f == nil {
		if f = fe.Verify(nil, nil, text, nil, true); f == nil {
			return nil, nil, fmt.Errorf("%s: no longer reads as a %s (internal error, please report)", fe.name, fe.kind)
		}
	}
	return analyse(fe.opts, f), f, nil
}

func (fe front) Verify(_ []byte, _ *file, after []byte, _ []rewrite.Edit, _ bool) *file {
	next := read(fe.name, after)
	if next != nil && next.kind != fe.kind {
		next.close()
		return nil
	}
	return next
}

// Applied: no guard reads a launch file's output (the keywords a config
// sets are its own, and no name in it can be unbound).
func (front) Applied(_, _ []byte, _, next *file, _ []rewrite.Edit, _ []*rewrite.Finding) (*file, []rewrite.Refusal) {
	return next, nil
}

func (front) Close(f *file) { f.close() }

// pass is one run of the rules over one launch file.
type pass struct {
	opts     Options
	f        *file
	vs       version.Versions
	findings []rewrite.Finding
	// scope says why the training rules' fixes are withheld from the run
	// being read (semantic.FullFineTune), "" when they apply: the decision
	// Python scripts get (rewrite.Withhold).
	scope string
}

// runs reports whether the engine runs the rule of this code.
func (p *pass) runs(code string) bool { return p.opts.Engine.Runs(code) }

// report records a finding of the rule code when the engine runs it,
// within the run's scope (p.scope).
func (p *pass) report(code string, fd rewrite.Finding) { p.add(code, fd, true) }

// reportStop records a contradiction that stops any run before step 0
// (bf16 and fp16 both on, a DeepSpeed mismatch): a full fine-tune needs it
// fixed too.
func (p *pass) reportStop(code string, fd rewrite.Finding) { p.add(code, fd, false) }

func (p *pass) add(code string, fd rewrite.Finding, scoped bool) {
	r := rewrite.Lookup(code)
	if r == nil || !p.runs(code) {
		return
	}
	fd.Code, fd.Name = r.Code, r.Name
	if fd.Severity == "" {
		fd.Severity = r.Severity
	}
	if scoped && r.TrainingOnly && p.scope != "" {
		rewrite.Withhold(&fd, p.scope)
	}
	if fd.Fix != nil && fd.Fix.Applicability == "" {
		fd.Fix.Applicability = rewrite.Safe
	}
	// Two commands that expand one array read the same option in it:
	// one finding.
	for _, had := range p.findings {
		if had.Code == fd.Code && had.Start == fd.Start && had.End == fd.End && had.Message == fd.Message {
			return
		}
	}
	p.findings = append(p.findings, fd)
}
