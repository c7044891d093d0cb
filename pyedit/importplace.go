package pyedit

import (
	"strings"

	"github.com/loratune/loratune-fix/finding"
	"github.com/loratune/loratune-fix/semantic"
	"github.com/loratune/loratune-fix/syntree"
)

// importPlace is where isort and ruff (I001, default settings) put a new
// top-level import of a third-party module (torch, transformers): in the
// file's first block of third-party imports (top-level imports not parted
// by a blank line or code), plain "import x" lines first, then "from x
// import y" lines, each kind sorted by module name regardless of case;
// with no third-party block, a block of its own after the standard
// library's. ok is false where the file has no import block to go by, or
// the place is not a line of its own: the caller then puts the line after
// the last import.
func importPlace(f *semantic.Facts, line string) (finding.Edit, bool) {
	src := f.Src
	blocks := importBlocks(f)
	key := importKey(line)
	for _, b := range blocks {
		if !thirdPartyBlock(b, src.Text) {
			continue
		}
		for _, st := range b {
			if !keyLess(key, importKey(st.Content(src.Text))) {
				continue
			}
			if _, own := src.Indent(st.Start()); !own {
				return finding.Edit{}, false
			}
			// Before the statement and the comment lines right above it,
			// which isort keeps with it.
			at := src.LineStart(st.Start())
			for at > 0 && strings.HasPrefix(strings.TrimSpace(string(src.Text[src.LineStart(at-1):at])), "#") {
				at = src.LineStart(at - 1)
			}
			if at == 0 {
				// The comments open the file: its header stays first.
				at = src.LineStart(st.Start())
			}
			return finding.Edit{Start: at, End: at, NewText: line + src.EOL}, true
		}
		return InsertAfter(src, b[len(b)-1], []string{line})
	}
	// No third-party block: one of its own after the standard library's.
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		if stdlibBlock(b, src.Text) {
			e, ok := InsertAfter(src, b[len(b)-1], []string{line})
			if ok {
				e.NewText = src.EOL + e.NewText
			}
			return e, ok
		}
	}
	return finding.Edit{}, false
}

// importBlocks parts the top-level imports into blocks, as isort reads
// sections: statements on following lines (comment lines between them
// allowed) form one block; a blank line or code between ends it.
func importBlocks(f *semantic.Facts) [][]*syntree.Node {
	src := f.Src
	var blocks [][]*syntree.Node
	for i, st := range f.ImportStmts {
		if i > 0 && joined(src, f.ImportStmts[i-1], st) {
			blocks[len(blocks)-1] = append(blocks[len(blocks)-1], st)
			continue
		}
		blocks = append(blocks, []*syntree.Node{st})
	}
	return blocks
}

// joined reports only comment lines between statement a and the next
// import b.
func joined(src *semantic.Source, a, b *syntree.Node) bool {
	from, to := src.LineEnd(a.End()), src.LineStart(b.Start())
	if rest := strings.TrimSpace(string(src.Text[a.End():min(from, b.Start())])); from > to || rest != "" && !strings.HasPrefix(rest, "#") {
		return false // b on a's line, or code after a
	}
	for _, l := range strings.SplitAfter(string(src.Text[from:to]), "\n") {
		if l != "" && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			return false
		}
	}
	return true
}

// importKey is an import statement's place in isort's order: plain
// imports before from-imports, then the module in lower case.
type importOrder struct {
	from   bool
	module string
}

func importKey(stmt string) importOrder {
	fields := strings.Fields(stmt)
	if len(fields) < 2 {
		return importOrder{}
	}
	return importOrder{from: fields[0] == "from", module: strings.ToLower(strings.TrimSuffix(fields[1], ","))}
}

func keyLess(a, b importOrder) bool {
	if a.from != b.from {
		return !a.from
	}
	return a.module < b.module
}

// thirdPartyBlock reports a block holding an absolute import of a module
// outside the standard library.
func thirdPartyBlock(b []*syntree.Node, text []byte) bool {
	for _, st := range b {
		m := importKey(st.Content(text)).module
		if top, _, _ := strings.Cut(m, "."); m != "" && top != "" && !stdlib[top] && top != "__future__" {
			return true
		}
	}
	return false
}

// stdlibBlock reports a block of standard library imports only.
func stdlibBlock(b []*syntree.Node, text []byte) bool {
	for _, st := range b {
		top, _, _ := strings.Cut(importKey(st.Content(text)).module, ".")
		if !stdlib[top] {
			return false
		}
	}
	return true
}

// stdlib are the top-level modules of Python's standard library (public
// names of sys.stdlib_module_names, Python 3.11), lower case.
var stdlib = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Fields(`abc aifc antigravity argparse array ast asynchat asyncio asyncore atexit
audioop base64 bdb binascii bisect builtins bz2 cprofile calendar cgi cgitb chunk cmath cmd code codecs codeop
collections colorsys compileall concurrent configparser contextlib contextvars copy copyreg crypt csv ctypes
curses dataclasses datetime dbm decimal difflib dis distutils doctest email encodings ensurepip enum errno
faulthandler fcntl filecmp fileinput fnmatch fractions ftplib functools gc genericpath getopt getpass gettext
glob graphlib grp gzip hashlib heapq hmac html http idlelib imaplib imghdr imp importlib inspect io ipaddress
itertools json keyword lib2to3 linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap
modulefinder msilib msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode operator
optparse os ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform plistlib poplib posix posixpath
pprint profile pstats pty pwd py_compile pyclbr pydoc pydoc_data pyexpat queue quopri random re readline
reprlib resource rlcompleter runpy sched secrets select selectors shelve shlex shutil signal site smtpd smtplib
sndhdr socket socketserver spwd sqlite3 sre_compile sre_constants sre_parse ssl stat statistics string
stringprep struct subprocess sunau symtable sys sysconfig syslog tabnanny tarfile telnetlib tempfile termios
textwrap this threading time timeit tkinter token tokenize tomllib trace traceback tracemalloc tty turtle
turtledemo types typing unicodedata unittest urllib uu uuid venv warnings wave weakref webbrowser winreg
winsound wsgiref xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo`) {
		m[name] = true
	}
	return m
}()
