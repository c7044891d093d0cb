package rewrite

// versionRules find what a script cannot run under its pinned versions.
var versionRules []*Rule
