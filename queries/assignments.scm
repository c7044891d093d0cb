; name = value, obj.attr = value and chained a = b = value
; (the chain nests: the right side of the outer assignment is an assignment).
(assignment
  left: [(identifier) (attribute) (subscript)] @target
  right: (_) @value) @assignment
