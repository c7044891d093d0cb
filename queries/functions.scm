; Function scopes: training or inference is decided per function.
(function_definition
  name: (identifier) @name
  body: (block) @body) @function
