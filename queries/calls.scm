; Every call whose callee is a name or a dotted attribute chain:
; from_pretrained, get_peft_model, Trainer(...), torch.compile, ...
; The Go side resolves import aliases and decides what the call is.
(call
  function: [(identifier) (attribute)] @callee
  arguments: (argument_list) @args) @call
