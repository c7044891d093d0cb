"""Checks a wheel that packaging/wheel.sh wrote against the binary it carries:
its tags (file name and WHEEL agree; a manylinux tag names the newest GLIBC
symbol version that objdump finds in the binary), its RECORD (every file,
with its sha256 and size) and the binary's executable bit.

    python3 check_wheel.py WHEEL BINARY VERSION
"""
import base64
import hashlib
import re
import subprocess
import sys
import zipfile


def fail(msg):
    sys.exit(f"check_wheel: {msg}")


def main(wheel, binary, version):
    name = wheel.rsplit("/", 1)[-1]
    m = re.fullmatch(r"loratune_fix-([^-]+)-py3-none-([a-z0-9_.]+)\.whl", name)
    if not m or m.group(1) != version:
        fail(f"{name}: want loratune_fix-{version}-py3-none-PLATFORM.whl")
    platforms = m.group(2).split(".")
    z = zipfile.ZipFile(wheel)
    info = f"loratune_fix-{version}.dist-info"
    wheel_meta = z.read(f"{info}/WHEEL").decode()
    if sorted(re.findall(r"^Tag: (.+)$", wheel_meta, re.M)) != sorted(f"py3-none-{p}" for p in platforms):
        fail(f"WHEEL tags {wheel_meta!r} differ from the file name's {platforms}")
    if "Root-Is-Purelib: false" not in wheel_meta:
        fail("a platform wheel must say Root-Is-Purelib: false")
    meta = z.read(f"{info}/METADATA").decode()
    if f"\nVersion: {version}\n" not in meta or "\nName: loratune-fix\n" not in meta:
        fail("METADATA: wrong name or version")

    # Tags from the binary itself, read by another tool than the writer's.
    dyn = subprocess.run(["objdump", "-T", binary], capture_output=True, text=True)
    glibc = [tuple(map(int, v.split("."))) for v in re.findall(r"\(GLIBC_(\d+\.\d+)", dyn.stdout)]
    for p in platforms:
        if p.startswith("manylinux_"):
            major, minor = map(int, p.split("_")[1:3])
            if not glibc or max(glibc) > (major, minor):
                fail(f"{p}: the binary needs GLIBC {max(glibc) if glibc else 'none'}")
            if max(glibc + [(2, 17)]) < (major, minor) and "CXXABI" not in dyn.stdout:
                fail(f"{p} is newer than the binary needs ({max(glibc)})")
        elif p.startswith("musllinux_") and glibc:
            fail(f"{p}: the binary links glibc")

    # RECORD: each file once, with the right hash and size; RECORD itself unhashed.
    rows = [r.split(",") for r in z.read(f"{info}/RECORD").decode().splitlines()]
    listed = {r[0]: r for r in rows}
    if sorted(listed) != sorted(z.namelist()) or len(listed) != len(rows):
        fail(f"RECORD lists {sorted(listed)}, the wheel holds {sorted(z.namelist())}")
    for path, h, size in rows:
        if path.endswith("/RECORD"):
            if h or size:
                fail("RECORD must not hash itself")
            continue
        data = z.read(path)
        want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        if h != want or int(size) != len(data):
            fail(f"RECORD: {path} has {h},{size}, want {want},{len(data)}")

    script = f"loratune_fix-{version}.data/scripts/loratune-fix"
    if script not in listed:
        fail(f"no {script}")
    with open(binary, "rb") as f:
        if z.read(script) != f.read():
            fail(f"{script} is not the binary")
    if not (z.getinfo(script).external_attr >> 16) & 0o111:
        fail(f"{script} is not executable")
    print(f"check_wheel: {name}: tags, RECORD and binary agree")


if __name__ == "__main__":
    main(*sys.argv[1:])
