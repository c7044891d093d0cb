"""Is the recorded GPU run still about the lines LTF004 emits?

    python3 e2e/pad/recorded_matches.py [RESULTS_JSON]

Reads the run-time block and its remote-code form from the goldens as
check_pad_block.py does, and compares their syntax trees with the ones the
recorded run executed (results/2026-12-01/results.json by default):
formatting may change (line wrapping), the code may not. Exits 1, naming
the golden, when they differ: rerun check_pad_block.py on a GPU machine and
record it. Needs only python3 (ast), no torch.
"""
import ast
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def emitted(golden):
    # The same extraction as check_pad_block.emitted (which imports torch).
    lines = open(golden, encoding="utf-8").read().splitlines()
    first = next(i for i, l in enumerate(lines) if "# loratune-fix LTF004:" in l)
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
    out, seen_config = [], False
    for l in lines[first:]:
        is_config = ".config.pad_token_id = " in l or ".generation_config.pad_token_id = " in l
        if seen_config and not is_config:
            break
        seen_config = seen_config or is_config
        out.append(l[len(indent):] if l.startswith(indent) else l)
    return "\n".join(out) + "\n"


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "results", "2026-12-01", "results.json")
    env = json.load(open(path))["env"]
    stale = []
    for key, golden in (("run_time_block", "fixtures/LTF004-dedicated-pad-token/dynamic_model_id.py.golden"),
                        ("remote_block", "fixtures/LTF004-dedicated-pad-token/remote_block_collator_by_pad_id.py.golden")):
        if ast.dump(ast.parse(env[key])) != ast.dump(ast.parse(emitted(os.path.join(REPO, golden)))):
            stale.append(golden)
    for g in stale:
        print(f"{g}: the pad block differs from the one the recorded run executed ({path}): rerun e2e/pad/check_pad_block.py")
    sys.exit(1 if stale else 0)


if __name__ == "__main__":
    main()
