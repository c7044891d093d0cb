// Package semantic is the program model that loratune-fix's rules read
// instead of the text as written. It sits below the rules (rewrite/,
// launch/) and the edit helpers (pyedit/) and above the syntax tree
// (syntree/); it holds no edit and no rule.
//
// Two layers. The first needs no tree:
//
//   - names: what a written name stands for once the file's imports are
//     read (Imports.Resolve: `wrap` -> "peft.get_peft_model" after `from peft
//     import get_peft_model as wrap`), and the reverse, the local name that
//     already binds a module (Imports.Local: "torch" -> "th");
//   - callees: what a resolved callee is (Of: AdapterWrap, ModelLoad,
//     Trainer, TRLConfig...), so that no rule compares a name an import can
//     rename;
//   - models: what a model class and id say about the model (KindOf: causal
//     LM, encoder-only, encoder-decoder, vision-language; Params: its size;
//     the families the rules single out), so that rules for causal LMs skip
//     the others and messages quote the model in the file.
//
// The second is the file model, built once per pass over a text by
// BuildFacts from a Source and its tree, and shared by every rule:
//
//   - facts.go: the calls with their resolved names and roles, assignments,
//     functions and scopes; querycompile.go, the queries that find them;
//   - flow.go and values.go: reaching definitions on each path, the values a
//     name may hold, constant conditions (dead branches), the labels the
//     script masks itself (IgnoreIndex, OwnPositionalMask);
//   - loads.go: the loads (kind, id, quantization per path, tuple targets,
//     loader classes held in variables);
//   - model.go: where a load's value goes (Verdict: Training, NotTraining,
//     Shared, Unseen), adapter evidence, the tokenizer of a load, and how
//     the file trains (Packs: packed rows; OffGPU: CPU or TPU);
//   - scope.go: adapter scope per load, optional adapters, dead code;
//   - kwargs.go, padflow.go, source_of.go, dtypes.go: settings as the call
//     sees them (keyword dicts, the pad a tokenizer gets, where a value comes
//     from, dtypes written as strings);
//   - source.go and syntax.go: the text (lines, positions, indentation) and
//     the node helpers every reader shares.
package semantic
