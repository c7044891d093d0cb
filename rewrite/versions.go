package rewrite

import (
	"fmt"
	"regexp"

	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
	"github.com/loratune/loratune-fix/version"
)

// The version types live in package version (no cgo), so that pins and
// config read them without the engine; these names keep the rules' code.
type (
	Version  = version.Version
	Versions = version.Versions
)

// vendoredPath is a sys.path entry that holds one of the libraries' own
// source: "./peft/src", "peft", "../transformers/src/".
var vendoredPath = regexp.MustCompile(`(?:^|[/\\])(transformers|peft|trl)(?:[/\\]|$)`)

// withVendored returns vs with each library that the file puts on sys.path
// from a copy of its own source (sys.path.append("./peft/src")) marked as
// a vendored copy: that fork is what the script imports, whatever the pins
// say, and it may lack any upstream name (DOMAIN §10).
func withVendored(f *semantic.Facts, vs Versions) Versions {
	text := f.Src.Text
	for _, c := range f.Calls {
		if c.Qual != "sys.path.append" && c.Qual != "sys.path.insert" {
			continue
		}
		semantic.WalkNodes(c.Args, func(n *syntree.Node) bool {
			s, ok := semantic.StringValue(n, text)
			if m := vendoredPath.FindStringSubmatch(s); ok && m != nil {
				vs.Set(m[1], Version{Ref: "a vendored copy", Source: fmt.Sprintf("sys.path, line %d", f.Src.Position(c.Node.Start()).Line)})
				return false
			}
			return true
		})
	}
	return vs
}
