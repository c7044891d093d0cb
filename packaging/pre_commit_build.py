"""PEP 517 backend of the repository root, for pre-commit's `language:
python` hooks (loratune-fix-py, loratune-fix-check-py).

pre-commit installs a python hook's repository with `pip install .`: this
backend makes that a small wheel with no files, whose one requirement is
the loratune-fix wheel (the binary, from the package index): no Go and no
compiler where the hook runs. Pin the wheel in the hook's
additional_dependencies (loratune-fix==0.4.0), as with any python hook.
The command itself, from source, is the sdist's business (ltf_build.py).
"""

import os
import zipfile

import ltf_build

NAME, DIST, VERSION = "loratune-fix-pre-commit", "loratune_fix_pre_commit", "0"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    info = f"{DIST}-{VERSION}.dist-info"
    files = [
        (f"{info}/METADATA", (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
                              f"Summary: pre-commit hooks of loratune-fix, from its wheel\n"
                              f"Requires-Dist: {ltf_build.NAME}\n").encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: loratune-fix packaging/pre_commit_build.py\n"
                          b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = "".join(f"{p},{ltf_build._hash(b)},{len(b)}\n" for p, b in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    name = f"{DIST}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for p, b in files:
            z.writestr(zipfile.ZipInfo(p, ltf_build._date()), b)
    return name
