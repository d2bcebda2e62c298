#!/usr/bin/env python3
"""The table of benchmarks/xfer/import.sh: per setup and file, the median time of the import
and of nbdcopy with their min-max and median MB/s, and the import's speed as a multiple of
nbdcopy's (nbdcopy's median time over the import's: >= 1.0 means the import is at least as
fast, the goal), with the range of the same ratio round by round; then per setup the time
of importing a 4 KiB file, what the command costs besides the copy."""
import csv
import statistics
import sys
from collections import defaultdict


def main(path):
    seconds = defaultdict(dict)   # (mode, file, tool) -> round -> seconds
    rates = defaultdict(list)     # (mode, file, tool) -> MB/s
    cpu = defaultdict(list)       # (mode, file, tool) -> the site's CPU seconds
    loads = []
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["mode"], row["file"], row["tool"])
            seconds[key][int(row["round"])] = float(row["seconds"])
            rates[key].append(float(row["mb_per_s"]))
            cpu[key].append(float(row["site_cpu_s"]))
            loads.append(float(row["load1"]))
    header = ("setup", "file", "import s", "nbdcopy s", "import MB/s", "nbdcopy MB/s", "x nbdcopy", "per round", "goal >= 1.0",
              "site CPU s import/nbdcopy")
    rows = []
    for mode, name in dict.fromkeys((m, n) for m, n, _ in seconds):
        imports, copies = seconds.get((mode, name, "import")), seconds.get((mode, name, "nbdcopy"))
        if not imports or not copies:
            continue
        paired = [copies[r] / imports[r] for r in imports if r in copies]
        ratio = statistics.median(copies.values()) / statistics.median(imports.values())
        rows.append((mode, name, spread(imports.values()), spread(copies.values()),
                     f"{statistics.median(rates[mode, name, 'import']):.0f}",
                     f"{statistics.median(rates[mode, name, 'nbdcopy']):.0f}",
                     f"{ratio:.2f}", f"{min(paired):.2f}-{max(paired):.2f}", "met" if ratio >= 1.0 else "short",
                     f"{statistics.median(cpu[mode, name, 'import']):.2f} / {statistics.median(cpu[mode, name, 'nbdcopy']):.2f}"))
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    print()
    for mode in dict.fromkeys(m for m, _, _ in seconds):
        tiny = seconds.get((mode, "4k", "import"))
        if tiny:
            print(f"{mode}: importing a 4 KiB file takes {spread(tiny.values())} s (JVM start, the gRPC calls, FLUSH)")
    print("site CPU s: medians, the setup's process (helio up's has its controller and second site too)")
    print(f"seconds: median (min-max) over the rounds; 1-minute load average when the copies ended: "
          f"median {statistics.median(loads):.1f}, min {min(loads):.1f}, max {max(loads):.1f}")


def spread(values):
    values = list(values)
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


if __name__ == "__main__":
    main(sys.argv[1])
