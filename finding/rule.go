package finding

// RuleInfo is what a rule tells people: the engine's rules give theirs
// (rewrite.Rule.Info) and the formats render it (SARIF, docs/rules.md).
type RuleInfo struct {
	Code     string // stable: "LTF001"
	Name     string // stable: "fp32-master-weights"
	Summary  string // one line
	Severity Severity
	Profiles []string // the profiles it belongs to; none: it runs only when selected
	Doc      string   // what it does, why, an example, when it stays away, what it costs
}

// ProfileInfo is a profile's name and what it stands for.
type ProfileInfo struct {
	Name, Doc string
}
