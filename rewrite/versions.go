package rewrite

import "github.com/loratune/loratune-fix/version"

// The version types live in package version (no cgo), so that pins and
// config read them without the engine; these names keep the rules' code.
type (
	Version  = version.Version
	Versions = version.Versions
)
