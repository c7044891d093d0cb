#!/usr/bin/env python3
"""signatures.py: the keyword arguments that the libraries' config, trainer and helper classes
accept, release by release, read from their released sources; writes signatures/table.json,
which the engine embeds (package signatures) to refuse a fix that adds a keyword the called
class does not take at the pinned version.

usage: python3 tools/signatures.py --git transformers=REPO --git trl=REPO --git peft=REPO [-o OUT]

REPO is a clone of the library (a bare mirror will do) whose tags vX.Y.Z are the releases.
Sampled: the newest patch of each minor from FIRST on (below), and the clone's HEAD for trl and
peft, named by the development version it declares (newer than any release). Nothing is
imported: the class bodies are read with ast, so the libraries need not be installed.

What a release's class accepts, in order:
  its own __init__     the parameters (self aside); **kwargs makes the class open there (the
                       engine checks nothing against an open class)
  a @dataclass         the fields of its body and of its dataclass bases (ClassVar, KW_ONLY and
                       field(init=False) are no keywords)
  otherwise            what its bases accept
A base in another library (trl's SFTConfig on transformers' TrainingArguments) is not copied
in: the class names it under "base", and the engine adds what the base accepts at that
library's own pinned version. A function (peft's prepare_model_for_kbit_training) is read
like an __init__. A name defined twice in a release (a deprecated module) accepts the union.

Python 3.10+ standard library, and git.
"""
import argparse, ast, json, os, re, subprocess, sys

FIRST = {"transformers": (4, 30), "trl": (0, 7), "peft": (0, 5)}
SRC = {"transformers": "src/transformers", "trl": "trl", "peft": "src/peft"}
NAMES = {
    "transformers": ["TrainingArguments", "Seq2SeqTrainingArguments", "Trainer", "Seq2SeqTrainer",
                     "BitsAndBytesConfig"],
    "trl": ["SFTConfig", "DPOConfig", "ORPOConfig", "KTOConfig", "CPOConfig", "RewardConfig",
            "GRPOConfig", "PPOConfig", "BCOConfig", "SFTTrainer", "DPOTrainer", "ORPOTrainer",
            "KTOTrainer", "CPOTrainer", "RewardTrainer", "GRPOTrainer", "PPOTrainer", "BCOTrainer"],
    # and every *Config that peft exports with an r field (LoHa, LoKr, AdaLora ...)
    "peft": ["LoraConfig", "prepare_model_for_kbit_training", "get_peft_model"],
}
TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def releases(pkg, repo):
    """(label, ref) of the newest patch of each minor from FIRST on, oldest first, and HEAD."""
    best = {}
    for t in git(repo, "tag").split():
        m = TAG.match(t)
        if m:
            v = tuple(int(x) for x in m.groups())
            if v[:2] >= FIRST[pkg] and v > best.get(v[:2], (0, 0, -1)):
                best[v[:2]] = v
    out = [(".".join(map(str, v)), "v" + ".".join(map(str, v))) for _, v in sorted(best.items())]
    if pkg != "transformers":  # the transformers clone at hand is a fork whose HEAD is its own
        head = head_version(pkg, repo)
        if head not in (label for label, _ in out):  # a head at a release is that release
            out.append((head, "HEAD"))
    return out


def head_version(pkg, repo):
    try:
        return git(repo, "show", "HEAD:VERSION").strip()
    except subprocess.CalledProcessError:
        init = git(repo, "show", f"HEAD:{SRC[pkg]}/__init__.py")
        return re.search(r"^__version__\s*=\s*[\"'](.+?)[\"']", init, re.M).group(1)


class Release:
    """One release of one library: its modules, parsed on demand."""

    def __init__(self, pkg, repo, ref):
        self.pkg, self.repo, self.ref = pkg, repo, ref
        self.prefix = SRC[pkg][:-len(pkg)]  # "src/" or ""
        self.trees, self.memo = {}, {}
        self.defs = {}  # top-level name -> modules (paths under the package) defining it
        out = git(repo, "grep", "-n", "-E", r"^(class|def) \w+", ref, "--", SRC[pkg] + "/*.py")
        for line in out.splitlines():
            _, path, _, text = line.split(":", 3)
            name = re.match(r"(?:class|def) (\w+)", text).group(1)
            if "/dummy_" in path:  # placeholders that raise without torch: def __init__(*a, **kw)
                continue
            self.defs.setdefault(name, []).append(path[len(self.prefix):])

    def tree(self, rel):
        if rel not in self.trees:
            try:
                self.trees[rel] = ast.parse(git(self.repo, "show", f"{self.ref}:{self.prefix}{rel}"))
            except (SyntaxError, subprocess.CalledProcessError):
                self.trees[rel] = ast.Module(body=[], type_ignores=[])
        return self.trees[rel]

    def accepts(self, name, skip=None):
        """Sig of the top-level definitions of name (but skip), united; None if there is none."""
        out = None
        for rel in dict.fromkeys(self.defs.get(name, ())):
            for st in self.tree(rel).body:
                if getattr(st, "name", None) == name and st is not skip and isinstance(
                        st, (ast.ClassDef, ast.FunctionDef)):
                    out = Sig.union(out, self.one(rel, st))
        return out

    def one(self, rel, node):
        key = (rel, node.lineno)
        if key not in self.memo:
            self.memo[key] = None  # a cycle of names adds nothing
            self.memo[key] = self.read(rel, node)
        return self.memo[key]

    def read(self, rel, node):
        if isinstance(node, ast.FunctionDef):
            return Sig.of_function(node, drop_self=False)
        bases = [b for b in (self.base(rel, node, e) for e in node.bases) if b]
        init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        dataclass, generates = is_dataclass(node)
        fields = {}
        for b in reversed(bases):  # the first base's fields win, the class's own over all
            fields.update(b.fields)
        if dataclass:
            fields.update(own_fields(node))
        if init is not None:
            sig = Sig.of_function(init, drop_self=True)
            sig.fields = fields
            return sig
        if dataclass and generates:
            base = next((b.base for b in bases if b.base), None)
            return Sig({k for k, init in fields.items() if init}, False, base, fields)
        out = None
        for b in bases:
            out = Sig.union(out, b)
        return Sig(set(), False, None, fields) if out is None else out

    def base(self, rel, cls, e):
        """Sig of one base expression; a class of another library is named (Sig.base), not read."""
        if isinstance(e, ast.Subscript):  # Generic[T]
            e = e.value
        imports = imports_of(self.tree(rel), rel)
        if isinstance(e, ast.Name):
            module, name = imports.get(e.id, (self.pkg, e.id))
        elif isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name):
            module, name = imports.get(e.value.id, (e.value.id, None))
            module, name = (module if name is None else f"{module}.{name}"), e.attr
        else:
            return None
        top = module.split(".")[0]
        if top == self.pkg:
            return self.accepts(name, skip=cls)
        if top in SRC and name in NAMES[top]:
            return Sig(set(), False, f"{top}.{name}", {})
        return None


class Sig:
    """What a definition accepts: keywords, open (**kwargs), base ("pkg.Class" of another
    library whose keywords it also takes), fields (a dataclass's, name -> in __init__)."""

    def __init__(self, keywords, open_, base, fields):
        self.keywords, self.open, self.base, self.fields = keywords, open_, base, fields

    @staticmethod
    def of_function(fn, drop_self):
        a = fn.args
        params = a.posonlyargs + a.args
        if drop_self and params:
            params = params[1:]
        names = {p.arg for p in params + a.kwonlyargs} - {p.arg for p in a.posonlyargs}
        for d in fn.decorator_list:  # @deprecate_kwarg("tokenizer", ...): still taken, renamed
            if (isinstance(d, ast.Call) and ast.unparse(d.func).endswith("deprecate_kwarg") and d.args
                    and isinstance(d.args[0], ast.Constant) and isinstance(d.args[0].value, str)):
                names.add(d.args[0].value)
        return Sig(names, a.kwarg is not None, None, {})

    @staticmethod
    def union(a, b):
        if a is None or b is None:
            return a or b
        return Sig(a.keywords | b.keywords, a.open or b.open, a.base or b.base, {**a.fields, **b.fields})


def is_dataclass(cls):
    """(decorated with @dataclass, whether that generates __init__)."""
    for d in cls.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        if (f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)) == "dataclass":
            off = isinstance(d, ast.Call) and any(
                k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in d.keywords)
            return True, not off
    return False, False


def own_fields(cls):
    out = {}
    for st in cls.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            ann = ast.unparse(st.annotation).strip("'\"")
            if re.match(r"(typing\.)?ClassVar\b|(dataclasses\.)?KW_ONLY$", ann):
                continue
            v = st.value
            out[st.target.id] = not (isinstance(v, ast.Call) and ast.unparse(v.func).endswith("field")
                                     and any(k.arg == "init" and isinstance(k.value, ast.Constant)
                                             and k.value.value is False for k in v.keywords))
    return out


def imports_of(tree, rel):
    """local name -> (absolute module, name imported from it, or None for a module)."""
    package = rel[:-3].split("/")[:-1]
    out = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom):
            module = n.module or ""
            if n.level:
                module = ".".join(package[:len(package) - n.level + 1] + ([n.module] if n.module else []))
            for a in n.names:
                out[a.asname or a.name] = (module, a.name)
        elif isinstance(n, ast.Import):
            for a in n.names:
                out[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], None)
    return out


def peft_r_configs(rel):
    exported = git(rel.repo, "show", f"{rel.ref}:{SRC['peft']}/__init__.py")
    return [n for n in rel.defs if n.endswith("Config") and re.search(rf"\b{n}\b", exported)
            and (s := rel.accepts(n)) and "r" in s.keywords]


def ranges(labels, present):
    """Runs of consecutive releases (of labels) in present, as [first, last] pairs."""
    out, run = [], None
    for v in labels:
        if v in present:
            run = [v, v] if run is None else [run[0], v]
        elif run:
            out.append(run)
            run = None
    return out + ([run] if run else [])


def build(repos):
    table = {"releases": {}, "classes": {}}
    for pkg in ("transformers", "trl", "peft"):
        rels = [(label, Release(pkg, repos[pkg], ref)) for label, ref in releases(pkg, repos[pkg])]
        labels = [label for label, _ in rels]
        table["releases"][pkg] = labels
        names = list(NAMES[pkg])
        if pkg == "peft":
            for _, r in rels:
                names += [n for n in peft_r_configs(r) if n not in names]
        for name in names:
            defined, opened, kws, bases = set(), set(), {}, {}
            for label, r in rels:
                s = r.accepts(name)
                if s is None:
                    continue
                defined.add(label)
                if s.open:
                    opened.add(label)
                for k in s.keywords:
                    kws.setdefault(k, set()).add(label)
                if s.base:
                    bases.setdefault(s.base, set()).add(label)
            if not defined:
                print(f"signatures: no {pkg}.{name} in any release", file=sys.stderr)
                continue
            entry = {"defined": ranges(labels, defined),
                     "keywords": {k: ranges(labels, v) for k, v in sorted(kws.items())}}
            if opened:
                entry["open"] = ranges(labels, opened)
            if bases:
                entry["base"] = {b: ranges(labels, v) for b, v in sorted(bases.items())}
            table["classes"][f"{pkg}.{name}"] = entry
            print(f"{pkg}.{name}: {len(kws)} keywords, in {len(defined)} of {len(labels)} releases"
                  + (f", open in {len(opened)}" if opened else "")
                  + (f", base {', '.join(bases)}" if bases else ""), file=sys.stderr)
    return table


def dump(table):
    """One class keyword a line: small diffs when the table is made again."""
    text = json.dumps(table, indent=1, sort_keys=True)
    text = re.sub(r"\[\s+(\"[^\"]*\"),\s+(\"[^\"]*\")\s+\]", r"[\1, \2]", text)
    text = re.sub(r"\[\s+(\[\"[^\]]*\](?:,\s+\[\"[^\]]*\])*)\s+\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    return re.sub(r"\[\n\s*((?:\"[^\"\n]*\",\n\s*)*\"[^\"\n]*\")\n\s*\]",
                  lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--git", action="append", default=[], metavar="PKG=REPO", required=True)
    ap.add_argument("-o", "--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "..", "signatures", "table.json"))
    args = ap.parse_args(argv[1:])
    repos = dict(x.split("=", 1) for x in args.git)
    if set(SRC) - set(repos):
        ap.error(f"--git for each of {', '.join(SRC)}")
    text = dump(build(repos))
    with open(args.out, "w") as fh:
        fh.write(text)
    print(f"wrote {os.path.normpath(args.out)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
