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
Linux only (/proc/stat, GNU time for the RSS).
"""
import os
import resource
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
    copy, rss_file = os.path.join(work, "copy"), os.path.join(work, "rss")
    kept = {label: [] for label, _ in specs}
    for _ in range(runs):
        for label, cmd in specs:
            for _attempt in range(6):
                wait_quiet()
                shutil.rmtree(copy, ignore_errors=True)
                subprocess.run(["cp", "-a", corpus, copy], check=True)
                os.sync()
                r0, b0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), busy_seconds(), time.perf_counter()
                p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file, "sh", "-c", cmd.replace("{dir}", copy)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                wall, b1, r1 = time.perf_counter() - t0, busy_seconds(), resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
                other = (b1 - b0) - cpu
                if p.returncode not in (0, 1):  # 1: findings
                    sys.exit(f"{label}: exit {p.returncode}: {p.stderr[-500:].decode(errors='replace')}")
                print(f"{label} {wall:.3f} {cpu:.3f} other={other:.2f}", file=sys.stderr, flush=True)
                if other < 0.15:
                    rss = int(open(rss_file).read().split()[-1]) // 1024
                    kept[label].append((wall, cpu, rss))
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
