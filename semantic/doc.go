// Package semantic is the program model that loratune-fix's rules read
// instead of the text as written. It sits below the rules and the edit
// helpers (rewrite/, launch/) and above the syntax tree; it holds no edit
// and no rule.
//
// The model answers, for one file:
//
//   - names: what a written name stands for once the file's imports are
//     read (Imports.Resolve: `wrap` -> "peft.get_peft_model" after `from peft
//     import get_peft_model as wrap`), and the reverse, the local name that
//     already binds a module (Imports.Local: "torch" -> "th");
//   - callees: what a resolved callee is (Of: AdapterWrap, ModelLoad,
//     Trainer, TRLConfig...), so that no rule compares a name an import can
//     rename;
//   - models: what a model class and id say about the model (KindOf: causal
//     LM, encoder-only, encoder-decoder, vision-language; Params: its size),
//     so that rules for causal LMs skip the others and messages quote the
//     model in the file.
//
// The per-file analyses built on these (reaching definitions with branch
// conditions, the loads and where their values go, the adapter graph) are
// built once per file by the engine (rewrite.Facts) from this package's
// answers; they move here as they are rewritten onto it.
package semantic
