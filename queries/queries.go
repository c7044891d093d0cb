// Package queries holds the tree-sitter queries that locate the Python
// constructs loratune-fix reasons about. They are data, kept out of the Go
// code and embedded at build time; package rewrite compiles them once.
package queries

import "embed"

// FS holds every *.scm file of this folder.
//
//go:embed *.scm
var FS embed.FS
