// Package pyedit turns an intention ("add this keyword", "insert these
// lines after that statement", "import torch") into byte edits of a Python
// source that follow the file's own layout: its quotes, indentation, line
// length and import order. It reads the file model (package semantic) to
// place what it writes, and decides nothing: rules call it. Each helper
// returns ok=false (or nil) where the layout is one it cannot edit safely,
// and the rule then reports without a fix.
//
// pyedit.go holds the edits (keywords, statements, comments out), layout.go
// the black-style re-layout of a call that grows past the line, and
// importplace.go where an added import goes (isort's sections).
package pyedit
