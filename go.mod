module github.com/loratune/loratune-fix

go 1.26.8

require (
	github.com/sergi/go-diff v1.4.0
	github.com/smacker/go-tree-sitter v0.0.0-20240827094217-dd81d9e9be82
	github.com/spf13/cobra v1.10.2
)

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
)
