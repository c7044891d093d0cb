// Package rewrite is loratune-fix's engine: it parses a Python source,
// builds the file model, runs the rules, and applies their fixes in a
// loop that never writes a text that fails to parse, reads a name that may
// be unbound, or passes a class a keyword it does not take.
//
// A map of its files, by layer (rules read the model; edits write source):
//
//   - the run: engine.go (Engine, Check, Fix), pass.go (a pass over one
//     text: Report, which withholds training fixes outside adapter scope
//     and drops findings in dead code), rule.go (the rules and profiles),
//     prefilter.go (trigger words before any parse), suppress.go (noqa).
//   - the file model, built once per pass on package semantic's answers:
//     facts.go (calls with their resolved names and roles, assignments,
//     scopes), flow.go and values.go (reaching definitions, the values a
//     name may hold, constant conditions), model.go (where a load's value
//     goes: training, inference, unseen; adapter evidence; the tokenizer of
//     a load), loads.go (the loads: kind, id, quantization per path),
//     scope.go (adapter scope, dead branches, optional adapters), kwargs.go,
//     trl.go (models TRL builds from a name), padflow.go, source_of.go,
//     library.go, dtypes.go, versions.go.
//   - the rules, one file each: ltfNNN_name.go.
//   - the edits: pyedit.go (insert, replace, comment out), layout.go and
//     indent.go (black-style re-layout), placement.go, source.go.
//   - the fix loop and its guards: fixloop.go (FixLoop, one loop for every
//     front end: Python through pyFront, launch configs through package
//     launch's FrontEnd), choose.go (which fixes go
//     together; a finding's identity), guard.go (the binding guard),
//     keyword_guard.go (package signatures), verify.go, frozen.go (notebook
//     spans no fix may touch), parse.go.
//   - for the launch-config front end: otherkinds.go.
package rewrite
