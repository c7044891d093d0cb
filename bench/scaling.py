#!/usr/bin/env python3
"""bench/scaling.py: -j 1 against -j 2 (or any commands) on a shared machine.

Usage: bench/scaling.py CORPUS RUNS LABEL=COMMAND...

Each COMMAND runs RUNS times, interleaved with the others (run 1 of every
command, then run 2, ...), on a fresh copy of CORPUS (cp -a, then sync,
untimed) whose path replaces {dir} in the command. On a machine that other
jobs share, a run is kept only when the rest of the machine used under
0.15 CPU seconds while it ran (busy time in /proc/stat less the run's own
user+sys); a run that fails this is retried, up to 6 times, after waiting
for a quiet half second. Prints every run (kept or not) as
"label wall cpu other=..." on stderr, then per label the median and the
minimum of the wall and CPU seconds of the kept runs and the peak RSS.
Linux only (/proc/stat).
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def busy_seconds():
    fields = [int(v) for v in open("/proc/stat").readline().split()[1:9]]
    idle = fields[3] + fields[4]
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def wait_quiet():
    for _ in range(120):
        before = busy_seconds()
        time.sleep(0.5)
        if busy_seconds() - before < 0.1:
            return


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    corpus, runs = sys.argv[1], int(sys.argv[2])
    specs = [a.split("=", 1) for a in sys.argv[3:]]
    work = tempfile.mkdtemp(prefix="ltf-scaling-")
    err_file = os.path.join(work, "stderr")
    kept = {label: [] for label, _ in specs}
    made = 0
    for _ in range(runs):
        for label, cmd in specs:
            for _attempt in range(6):
                wait_quiet()
                # A new copy each run, none deleted before the end (see
                # new_copy in bench/run.sh: ext4 without a journal makes a
                # file slower for each inode freed in the last minutes).
                made += 1
                copy = os.path.join(work, f"copy{made}")
                subprocess.run(["cp", "-a", corpus, copy], check=True)
                os.sync()
                b0, t0 = busy_seconds(), time.perf_counter()
                with open(err_file, "w+b") as err:
                    p = subprocess.Popen(["sh", "-c", cmd.replace("{dir}", copy)], stdout=subprocess.DEVNULL, stderr=err)
                    # wait4: the command's own CPU time and peak RSS (its
                    # children's too), without GNU time.
                    _, status, ru = os.wait4(p.pid, 0)
                    wall, b1 = time.perf_counter() - t0, busy_seconds()
                    p.returncode = rc = os.waitstatus_to_exitcode(status)
                    err.seek(0)
                    tail = err.read()[-500:]
                cpu = ru.ru_utime + ru.ru_stime
                other = (b1 - b0) - cpu
                if rc not in (0, 1):  # 1: findings
                    sys.exit(f"{label}: exit {rc}: {tail.decode(errors='replace')}")
                print(f"{label} {wall:.3f} {cpu:.3f} other={other:.2f}", file=sys.stderr, flush=True)
                if other < 0.15:
                    kept[label].append((wall, cpu, ru.ru_maxrss // 1024))
                    break
    shutil.rmtree(work, ignore_errors=True)
    for label, v in kept.items():
        if not v:
            print(f"{label}: no quiet run")
            continue
        w, c = [x[0] for x in v], [x[1] for x in v]
        print(f"{label:10} n={len(v)} wall median {statistics.median(w):.2f} min {min(w):.2f} | "
              f"cpu median {statistics.median(c):.2f} min {min(c):.2f} | peak RSS {max(x[2] for x in v)} MB")


main()
