// Package rewrite is loratune-fix's engine: it parses a Python source,
// has package semantic build the file model, runs the rules, and applies
// their fixes in a loop that never writes a text that fails to parse,
// reads a name that may be unbound, or passes a class a keyword it does
// not take.
//
// Layers (internal/layers keeps them): the rules here read the model
// (package semantic) and write through the edit helpers (package pyedit);
// neither of those imports this package.
//
// A map of its files:
//
//   - the run: engine.go (Engine, Check, Fix), pass.go (a pass over one
//     text: Report, which withholds training fixes outside adapter scope
//     and drops findings in dead code), rule.go (the rules and profiles),
//     prefilter.go (trigger words before any parse), suppress.go (noqa),
//     parse.go (the parser pool, syntax errors).
//   - the rules, one file each: ltfNNN_name.go (LTF001's decision,
//     DecideFP32, serves every front end), with what they share:
//     library.go (what the libraries do with the keywords the rules add:
//     unsloth, remote code, flash attention, the dtype keyword's spelling),
//     trl.go (models TRL builds from a name), versions.go (vendored copies
//     of the libraries), placement.go (where a rule inserts a statement),
//     notcause.go (the red herrings `loratune-fix rules` lists).
//   - the fix loop and its guards: fixloop.go (FixLoop, one loop for every
//     front end: Python through pyFront, launch configs through package
//     launch's FrontEnd), choose.go (which fixes go together; a finding's
//     identity), guard.go (the binding guard),
//     keyword_guard.go (package signatures), verify.go, indent.go (the
//     verifying parse's indentation check), frozen.go (notebook spans no
//     fix may touch), incremental.go (the language server's kept parse).
//   - for the launch-config front end: otherkinds.go.
package rewrite
