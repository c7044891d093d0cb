package rewrite

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/loratune/loratune-fix/finding"
)

// Rule is one concern with a stable code and name, in the shape of Go's
// analysis.Analyzer: a Doc for people and a Run that reports findings.
type Rule struct {
	Code     string // stable: "LTF001"
	Name     string // stable: "fp32-master-weights"
	Summary  string // one line for `loratune-fix rules`
	Severity Severity
	// Profiles the rule belongs to ("default", "lean"); none means it runs
	// only when selected.
	Profiles []string
	// Triggers: a file with none of these bytes cannot produce a finding.
	Triggers []string
	// FullFineTuneToo: the fix is right on a full fine-tune as well
	// (use_cache off), so an adapter applied on some paths only does not
	// withhold it.
	FullFineTuneToo bool
	// TrainingOnly: the rule reports only in files that train, so the
	// prefilter also asks for one of trainingWords.
	TrainingOnly bool
	// Also: when set, a file must hold one of these bytes as well as a
	// trigger (a common trigger word such as "compile" made precise).
	Also []string
	// Doc: what it does, why, an example, when it stays away, what it costs.
	Doc string
	Run func(*Pass)
}

// trainingWords and trainingCalls are in every file where Facts.HasTraining
// can be true: the training signals of markScopes (a *Trainer call,
// get_peft_model, prepare_model_for_kbit_training, .train(), a backward
// call, a step of something named optim...). The calls are a pattern, not
// words: "backward" and "optim" alone are in a tenth of a library's files
// (backwards compatibility, optimize), which then cost a parse each.
// The rest are the adapter and training words of loads whose model leaves
// the file: a config's lazy load has an adapter config beside it
// (lazyLoad), a helper module's load reads a training option
// (readsTrainingOption, case-insensitive there).
var trainingWords = []string{"Trainer", "train(", "get_peft_model", "prepare_model_for_kbit_training",
	"gradient_checkpointing", "lora", "Lora", "LoRA", "LORA", "peft", "Peft", "PEFT"}

// hasTrainingCall reports a call that markScopes takes for training and
// trainingWords cannot name: backward(...) (loss.backward(),
// accelerator.backward(loss)), train(...) with white space before the
// parenthesis, and a step of something named optim (optimizer.step(),
// self.optim_g.step(), Optimizer . step ()). It is the regular expression
// `(backward|train)\s*\(|(?i:optim)[\w.\[\]\s]*\.\s*step\s*\(`, written
// out: the regexp package took a fifth of a library-wide check.
func hasTrainingCall(text []byte) bool {
	for _, name := range []string{"backward", "train"} {
		for at := 0; ; {
			i := bytes.Index(text[at:], []byte(name))
			if i < 0 {
				break
			}
			at += i + len(name)
			if callParen(text, at) {
				return true
			}
		}
	}
	for at := 0; ; {
		i := bytes.Index(text[at:], []byte("step"))
		if i < 0 {
			return false
		}
		name := at + i
		at = name + len("step")
		if !callParen(text, at) {
			continue
		}
		dot := name - 1
		for dot >= 0 && isSpace(text[dot]) {
			dot--
		}
		if dot < 0 || text[dot] != '.' {
			continue
		}
		start := dot
		for start > 0 && (dottedByte(text[start-1]) || isSpace(text[start-1])) {
			start--
		}
		if bytes.Contains(bytes.ToLower(text[start:dot]), []byte("optim")) {
			return true
		}
	}
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' || b == '\v'
}

// callParen reports an opening parenthesis at i after optional white space.
func callParen(text []byte, i int) bool {
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	return i < len(text) && text[i] == '('
}

func dottedByte(b byte) bool {
	return b == '_' || b == '.' || b == '[' || b == ']' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// Profile names.
const (
	ProfileDefault = "default"
	ProfileLean    = "lean"
)

// profiles are the profiles with what each one stands for, in name order;
// read them through Profiles.
var profiles = []finding.ProfileInfo{
	{Name: ProfileDefault, Doc: "the reported fix set: fp32 master weights, eager attention, device_map=None, dedicated pad, use_cache off, deferred compile (measured: 1.65x peak memory and 0.94x speed at sequence 512, 1.95x and 0.73x at 2048)"},
	{Name: ProfileLean, Doc: "keeps bf16 weights and SDPA: switches the cuDNN SDPA backend off instead of fp32 masters and eager attention (measured: same peak memory, 1.09x speed at sequence 512, 0.88x at 2048)"},
}

// Profiles returns the profiles in name order.
func Profiles() []finding.ProfileInfo { return slices.Clone(profiles) }

// CheckProfile returns an error when name is not a profile.
func CheckProfile(name string) error {
	for _, p := range profiles {
		if p.Name == name {
			return nil
		}
	}
	return fmt.Errorf("unknown profile %q (want default or lean)", name)
}

// CheckRule returns an error when key (a code, a code prefix, a name or
// ALL) selects no rule.
func CheckRule(key string) error {
	_, _, err := Selection{Select: []string{key}}.Resolve()
	return err
}

// Info is what the rule tells people, for the output formats.
func (r *Rule) Info() finding.RuleInfo {
	return finding.RuleInfo{Code: r.Code, Name: r.Name, Summary: r.Summary, Severity: r.Severity, Profiles: slices.Clone(r.Profiles), Doc: r.Doc}
}

// Infos is Info of each rule.
func Infos(rules []*Rule) []finding.RuleInfo {
	out := make([]finding.RuleInfo, len(rules))
	for i, r := range rules {
		out[i] = r.Info()
	}
	return out
}

// All returns every rule in code order.
func All() []*Rule {
	rules := []*Rule{
		fp32MasterWeights, eagerAttention, trainingDeviceMap, dedicatedPadToken,
		trainingUseCache, deferredCompile, sdpaBackendFence, trainingPaddingSide,
		visibleNaNLogging, gemma2EagerAttention, fp16OnBF16Native, reentrantCheckpointing,
		loadIn8bitRemoved, removedTrainingArguments, prepareModelForInt8Training, doraOProj,
		autocastAdapterDtype, computeLossSignature,
	}
	sort.SliceStable(rules, func(i, j int) bool { return rules[i].Code < rules[j].Code })
	return rules
}

// Lookup finds a rule by code (any case) or name.
func Lookup(key string) *Rule {
	for _, r := range All() {
		if strings.EqualFold(r.Code, key) || r.Name == key {
			return r
		}
	}
	return nil
}

// InProfile reports whether r belongs to profile.
func (r *Rule) InProfile(profile string) bool {
	for _, p := range r.Profiles {
		if p == profile {
			return true
		}
	}
	return false
}

// Selection chooses the rules of a run the way ruff does: select (or,
// when it is empty, the profile's rules), plus extend-select, minus
// ignore. Keys are codes ("LTF002", any case), code prefixes ("LTF00"),
// names ("eager-attention") or ALL.
//
// A profile also decides what must not run with it: lean keeps bf16
// weights and fast attention, so LTF001 and LTF002 would undo it; default
// applies those, so LTF007's fence is redundant there. Such a rule runs
// only when select or extend-select names it by its exact code or name,
// never through a prefix or ALL, and Resolve returns a note saying so.
type Selection struct {
	Profile                      string
	Select, ExtendSelect, Ignore []string
}

// Resolve returns the selected rules in code order, and one note for each
// rule outside the profile that runs because it was named.
func (s Selection) Resolve() (rules []*Rule, notes []string, err error) {
	profile := s.Profile
	if profile == "" {
		profile = ProfileDefault
	}
	if err := CheckProfile(profile); err != nil {
		return nil, nil, err
	}
	// match returns the codes keys match, and those named exactly.
	match := func(keys []string) (matched, named map[string]bool, err error) {
		matched, named = map[string]bool{}, map[string]bool{}
		for _, k := range keys {
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			found := false
			for _, r := range All() {
				exact := strings.EqualFold(k, r.Code) || k == r.Name
				if exact || strings.EqualFold(k, "ALL") || strings.HasPrefix(r.Code, strings.ToUpper(k)) {
					matched[r.Code], found = true, true
				}
				if exact {
					named[r.Code] = true
				}
			}
			if !found {
				return nil, nil, fmt.Errorf("unknown rule %q (see `loratune-fix rules`)", k)
			}
		}
		return matched, named, nil
	}
	selected, selNamed, err := match(s.Select)
	if err != nil {
		return nil, nil, err
	}
	extended, extNamed, err := match(s.ExtendSelect)
	if err != nil {
		return nil, nil, err
	}
	ignored, _, err := match(s.Ignore)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range All() {
		if ignored[r.Code] {
			continue
		}
		inProfile := r.InProfile(profile)
		switch {
		case inProfile && (len(s.Select) == 0 || selected[r.Code] || extended[r.Code]):
		case !inProfile && (selNamed[r.Code] || extNamed[r.Code]):
			key := "select"
			if !selNamed[r.Code] {
				key = "extend-select"
			}
			notes = append(notes, fmt.Sprintf("%s %s is not in the %s profile; it runs because %s names it", r.Code, r.Name, profile, key))
		default:
			continue
		}
		rules = append(rules, r)
	}
	return rules, notes, nil
}
