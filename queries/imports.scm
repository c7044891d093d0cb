; import torch / import torch as th / import transformers as tf
(import_statement
  name: [
    (dotted_name) @module
    (aliased_import name: (dotted_name) @module alias: (identifier) @alias)
  ]) @import

; from transformers import AutoModelForCausalLM as AMC, Trainer
(import_from_statement
  module_name: (dotted_name) @from
  name: [
    (dotted_name) @name
    (aliased_import name: (dotted_name) @name alias: (identifier) @alias)
  ]) @import
