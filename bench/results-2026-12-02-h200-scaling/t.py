# t.py NAME ERRFILE CMD...: runs CMD, prints "NAME wall cpu rss_mb rc" (stdout to /dev/null)
import resource, subprocess, sys, time
name, err = sys.argv[1:3]
with open(err, "w") as e:
    t = time.perf_counter()
    rc = subprocess.run(sys.argv[3:], stdout=subprocess.DEVNULL, stderr=e).returncode
    wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
gcs = sum(1 for l in open(err, errors="replace") if l.startswith("gc "))
last = [l for l in open(err, errors="replace") if l.startswith("gc ")][-1:] 
pct = last[0].split()[3] if last else "-"
print("%-28s wall %6.3f cpu %7.3f rss %4d MB rc %d gcs %4d gc%% %s" % (name, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss // 1024, rc, gcs, pct), flush=True)
