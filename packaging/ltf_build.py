"""Python packages of loratune-fix: a wheel around the Go binary, an sdist.

One file, standard library only (no PyPI here: no maturin, no hatch):

- `python3 ltf_build.py wheel --binary B --tag T --goos OS --goarch ARCH OUTDIR`
  writes the release archive and the platform wheel that carry binary B
  (packaging/wheel.sh calls it);
- `python3 ltf_build.py sdist --tag T OUTDIR` writes the source distribution
  from `git ls-files` (packaging/sdist.sh calls it);
- inside the sdist this file is the PEP 517 backend (pyproject.toml names it):
  build_wheel runs `go build` with the Go toolchain and a C compiler (cgo:
  tree-sitter is C), then writes the wheel as above.

The binary goes under `<name>-<version>.data/scripts/`, which installers put
on PATH as they do ruff's and uv's. T is the release tag (v0.4.0): the binary
prints it with --version, and the wheel's version is its PEP 440 form.
"""

import base64
import calendar
import hashlib
import io
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

NAME = "loratune-fix"
DIST = "loratune_fix"  # the name as wheel and sdist file names spell it
SUMMARY = "Fix the settings that make bf16 LoRA/DoRA fine-tuning go NaN"
URL = "https://github.com/loratune/loratune-fix"
TAG_FILE = "RELEASE_TAG"  # in the sdist: the tag it was made from

# Libraries a manylinux binary may link (PEP 600 leaves them to the system;
# the list is the part of auditwheel's policy a Go binary can meet).
GLIBC_LIBS = {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libresolv.so.2",
              "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1"}

# The C++ runtime (the YAML grammar's scanner is C++): the newest symbol
# versions of libstdc++ and libgcc_s that each manylinux level guarantees
# (auditwheel's policy, x86_64 and aarch64), oldest level first.
CXX_LEVELS = [
    ((2, 17), {"CXXABI": (1, 3, 7), "GLIBCXX": (3, 4, 19), "GCC": (4, 7, 0)}),
    ((2, 24), {"CXXABI": (1, 3, 10), "GLIBCXX": (3, 4, 22), "GCC": (4, 7, 0)}),
    ((2, 28), {"CXXABI": (1, 3, 11), "GLIBCXX": (3, 4, 24), "GCC": (7, 0, 0)}),
    ((2, 31), {"CXXABI": (1, 3, 12), "GLIBCXX": (3, 4, 28), "GCC": (7, 0, 0)}),
]

# Go 1.25 and later run on macOS 12 and later.
MACOS_MIN = "12_0"


def pep440(tag):
    """v0.4.0 -> 0.4.0, v0.4.0-rc.1 -> 0.4.0rc1, v0.0.0-dev -> 0.0.0.dev0."""
    m = re.fullmatch(r"v?(\d+(?:\.\d+)*)(?:-?(a|alpha|b|beta|rc|dev)\.?(\d*))?", tag)
    if not m:
        raise ValueError(f"release tag {tag!r}: want vX.Y.Z, optionally -rcN, -alphaN, -betaN or -dev")
    v, pre, n = m.group(1), m.group(2), m.group(3) or "0"
    if pre is None:
        return v
    if pre == "dev":
        return f"{v}.dev{n}"
    return v + {"alpha": "a", "beta": "b"}.get(pre, pre) + n


def _vers(text, prefix):
    return [tuple(int(x) for x in v.split(".")) for v in re.findall(rf"Name: {prefix}_(\d+(?:\.\d+)*)\b", text)]


def glibc_tags(binary, arch):
    """The manylinux tags a dynamically linked binary earns: the newest
    GLIBC_x.y symbol version it needs, raised where its C++ runtime symbols
    need a later level (readelf reads any architecture)."""
    dyn = subprocess.run(["readelf", "--wide", "-d", binary], check=True, capture_output=True, text=True).stdout
    libs = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn)
    if not libs:
        return None  # static: no glibc needed
    extra = sorted(set(libs) - GLIBC_LIBS)
    if extra:
        raise SystemExit(f"{binary} links {', '.join(extra)}: not allowed in a manylinux wheel")
    ver = subprocess.run(["readelf", "--wide", "-V", binary], check=True, capture_output=True, text=True).stdout
    level = max([(2, 17)] + [v[:2] for v in _vers(ver, "GLIBC")])  # 2.17: manylinux2014, the oldest pip still targets
    for name in ("CXXABI", "GLIBCXX", "GCC"):
        for need in _vers(ver, name):
            fits = [lv for lv, caps in CXX_LEVELS if need <= caps[name]]
            if not fits:
                raise SystemExit(f"{binary} needs {name}_{'.'.join(map(str, need))}: newer than any manylinux level known here")
            level = max(level, fits[0])
    tags = [f"manylinux_{level[0]}_{level[1]}_{arch}"]
    if level == (2, 17):
        tags.append(f"manylinux2014_{arch}")  # the same, as pip before 20.3 spells it
    return tags


def platform_tags(binary, goos, goarch):
    arch = {"amd64": "x86_64", "arm64": "aarch64" if goos == "linux" else "arm64"}.get(goarch)
    if arch is None:
        raise SystemExit(f"no wheel platform tag for GOARCH={goarch}")
    if goos == "linux":
        # A static binary (musl-gcc -static) needs no libc at run time.
        return glibc_tags(binary, arch) or [f"musllinux_1_2_{arch}"]
    if goos == "darwin":
        return [f"macosx_{MACOS_MIN}_{arch}"]
    if goos == "windows":
        return [{"x86_64": "win_amd64", "arm64": "win_arm64"}[arch]]
    raise SystemExit(f"no wheel platform tag for GOOS={goos}")


def metadata(version, readme):
    head = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {version}",
        f"Summary: {SUMMARY}",
        f"Home-page: {URL}",
        f"Project-URL: Source, {URL}",
        "Keywords: lora,peft,transformers,bf16,codemod",
        "Classifier: Environment :: Console",
        "Classifier: Programming Language :: Go",
        "Classifier: Topic :: Software Development :: Quality Assurance",
        "Description-Content-Type: text/markdown",
    ]
    return ("\n".join(head) + "\n\n" + readme).encode()


def _hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _date():
    # Reproducible: the same inputs give the same bytes (SOURCE_DATE_EPOCH as
    # reproducible-builds.org defines it; 1980 is the oldest date zip holds).
    t = time.gmtime(max(int(os.environ.get("SOURCE_DATE_EPOCH", "315532800")), 315532800))
    return t[:6]


def write_wheel(outdir, binary, tag, platforms, readme):
    """Writes the wheel and returns its path."""
    version = pep440(tag)
    exe = NAME + (".exe" if binary.endswith(".exe") else "")
    info, data = f"{DIST}-{version}.dist-info", f"{DIST}-{version}.data"
    wheel_meta = ["Wheel-Version: 1.0", "Generator: loratune-fix packaging/ltf_build.py", "Root-Is-Purelib: false"]
    wheel_meta += [f"Tag: py3-none-{p}" for p in platforms]
    with open(binary, "rb") as f:
        files = [(f"{data}/scripts/{exe}", f.read(), 0o755)]
    files += [(f"{info}/METADATA", metadata(version, readme), 0o644),
              (f"{info}/WHEEL", ("\n".join(wheel_meta) + "\n").encode(), 0o644)]
    record = "".join(f"{p},{_hash(b)},{len(b)}\n" for p, b, _ in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, f"{DIST}-{version}-py3-none-{'.'.join(platforms)}.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, b, mode in files:  # the .dist-info last, RECORD at the very end, as PEP 427 advises
            zi = zipfile.ZipInfo(p, _date())
            zi.external_attr = (stat.S_IFREG | mode) << 16  # the executable bit survives the install
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, b)
    return path


def write_sdist(outdir, tag, root, files):
    """Writes <dist>-<version>.tar.gz with files (relative to root), this
    file as the build backend, and PKG-INFO; returns its path."""
    version = pep440(tag)
    base = f"{DIST}-{version}"
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    pyproject = (
        "# Builds loratune-fix from source with the Go toolchain (go on PATH, a C\n"
        "# compiler for cgo): ltf_build.py is the whole backend.\n"
        "[build-system]\nrequires = []\nbuild-backend = \"ltf_build\"\nbackend-path = [\".\"]\n\n"
        f"[project]\nname = \"{NAME}\"\nversion = \"{version}\"\ndescription = \"{SUMMARY}\"\n"
        "readme = \"README.md\"\n"
    )
    generated = {"PKG-INFO": metadata(version, readme), "pyproject.toml": pyproject.encode(),
                 TAG_FILE: (tag + "\n").encode()}
    with open(os.path.abspath(__file__), "rb") as f:
        generated["ltf_build.py"] = f.read()
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, base + ".tar.gz")
    mtime = calendar.timegm(_date() + (0, 0, 0))

    def add(tar, name, data, mode):
        ti = tarfile.TarInfo(f"{base}/{name}")
        ti.size, ti.mode, ti.mtime = len(data), mode, int(mtime)
        tar.addfile(ti, io.BytesIO(data))

    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(set(files) - set(generated)):
            full = os.path.join(root, name)
            with open(full, "rb") as f:
                add(tar, name, f.read(), 0o755 if os.stat(full).st_mode & 0o111 else 0o644)
        for name, data in sorted(generated.items()):
            add(tar, name, data, 0o644)
    return path


def write_archive(outdir, binary, tag, goos, goarch, libc, root):
    """The release archive: loratune-fix_TAG_OS_ARCH[_musl].tar.gz (.zip on
    Windows) holding one folder of that name with the binary, README.md and
    CHANGELOG.md. action.yml downloads it by this name."""
    name = f"{NAME}_{tag}_{goos}_{goarch}" + ("_musl" if libc == "musl" else "")
    exe = os.path.basename(binary)
    members = [(exe, binary, 0o755)] + [(f, os.path.join(root, f), 0o644) for f in ("README.md", "CHANGELOG.md")]
    os.makedirs(outdir, exist_ok=True)
    if goos == "windows":
        path = os.path.join(outdir, name + ".zip")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for arc, src, mode in members:
                zi = zipfile.ZipInfo(f"{name}/{arc}", _date())
                zi.external_attr = (stat.S_IFREG | mode) << 16
                zi.compress_type = zipfile.ZIP_DEFLATED
                with open(src, "rb") as f:
                    z.writestr(zi, f.read())
        return path
    path = os.path.join(outdir, name + ".tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for arc, src, mode in members:
            with open(src, "rb") as f:
                data = f.read()
            ti = tarfile.TarInfo(f"{name}/{arc}")
            ti.size, ti.mode, ti.mtime = len(data), mode, calendar.timegm(_date() + (0, 0, 0))
            tar.addfile(ti, io.BytesIO(data))
    return path


def go_build(root, tag, out, env=None):
    """go build of the command, its version stamped with tag."""
    go = shutil.which("go")
    if go is None:
        raise SystemExit("building loratune-fix from source needs Go (go.mod names the version) and a C "
                         "compiler for cgo; or install a wheel: pip install loratune-fix")
    env = dict(os.environ if env is None else env, CGO_ENABLED="1")
    ldflags = f"-s -w -X main.releaseVersion={tag}"
    subprocess.run([go, "build", "-trimpath", "-ldflags", ldflags, "-o", out, "./cmd/loratune-fix"],
                   cwd=root, env=env, check=True)


# --- PEP 517 hooks, used inside the sdist ----------------------------------

def _here():
    return os.path.dirname(os.path.abspath(__file__))


def _sdist_tag():
    with open(os.path.join(_here(), TAG_FILE), encoding="utf-8") as f:
        return f.read().strip()


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    root = _here()
    exe = "loratune-fix" + (".exe" if os.name == "nt" else "")
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, exe)
        go_build(root, _sdist_tag(), binary)
        # Built here for here: the interpreter's own platform tag, as any
        # wheel pip builds from source.
        plat = re.sub(r"[-.]", "_", sysconfig.get_platform())
        with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
            path = write_wheel(wheel_directory, binary, _sdist_tag(), [plat], f.read())
    return os.path.basename(path)


def build_sdist(sdist_directory, config_settings=None):
    root = _here()
    files = [os.path.relpath(os.path.join(d, n), root) for d, _, names in os.walk(root) for n in names]
    return os.path.basename(write_sdist(sdist_directory, _sdist_tag(), root, files))


# --- command line, used by packaging/wheel.sh and sdist.sh -----------------

def main(argv):
    import argparse
    ap = argparse.ArgumentParser(prog="ltf_build.py")
    sub = ap.add_subparsers(dest="cmd", required=True)
    w = sub.add_parser("wheel")
    w.add_argument("--binary", required=True)
    w.add_argument("--tag", required=True)
    w.add_argument("--goos", required=True)
    w.add_argument("--goarch", required=True)
    w.add_argument("--libc", default="")
    w.add_argument("outdir")
    s = sub.add_parser("sdist")
    s.add_argument("--tag", required=True)
    s.add_argument("outdir")
    a = ap.parse_args(argv)
    root = os.path.dirname(_here())
    if a.cmd == "wheel":
        with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        print(write_archive(a.outdir, a.binary, a.tag, a.goos, a.goarch, a.libc, root))
        print(write_wheel(a.outdir, a.binary, a.tag, platform_tags(a.binary, a.goos, a.goarch), readme))
    else:
        ls = subprocess.run(["git", "ls-files", "-z"], cwd=root, check=True, capture_output=True).stdout
        # What `go build ./cmd/loratune-fix` needs: no tests, fixtures or benchmarks.
        skip = ("bench/", "e2e/", "fixtures/", "examples/", ".ci/", ".github/", "packaging/")
        files = [p for p in ls.decode().split("\0") if p and not p.startswith(skip)
                 and not p.endswith("_test.go") and "/testdata/" not in p]
        print(write_sdist(a.outdir, a.tag, root, files))


if __name__ == "__main__":
    main(sys.argv[1:])
