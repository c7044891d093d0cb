module github.com/loratune/loratune-fix

go 1.26.8

require (
	github.com/sergi/go-diff v1.4.0
	github.com/smacker/go-tree-sitter v0.0.0-20240827094217-dd81d9e9be82
)
