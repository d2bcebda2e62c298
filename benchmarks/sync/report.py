#!/usr/bin/env python3
"""Reads the fio JSON of benchmarks/sync/run.sh, writes results.csv and prints the table
with issue #26's goals: at 0 ms sync >= 0.7x proactive; at 75 ms a QD1 fsync'd write within
1 RTT + 5 ms of the 0 ms figure."""
import csv
import json
import re
import statistics
import sys
from pathlib import Path

NAME = re.compile(r"(?P<rtt>\d+)ms-(?P<mode>sync|proactive)-(?P<workload>qd1-fsync|qd32)-(?P<round>\d+)\.json")


def runs(out):
    for path in sorted((out / "fio").glob("*.json")):
        match = NAME.fullmatch(path.name)
        if not match:
            continue
        job = json.loads(path.read_text())["jobs"][0]
        write = job["write"]
        iops = write["iops"]
        yield {
            "rtt_ms": int(match["rtt"]),
            "mode": match["mode"],
            "workload": match["workload"],
            "round": int(match["round"]),
            "iops": round(iops, 1),
            # A QD1 fsync'd write takes a write and a FLUSH: 1/IOPS is the time of both.
            "ms_per_write": round(1000 / iops, 3) if iops else None,
            "write_p50_ms": round(write["clat_ns"]["percentile"]["50.000000"] / 1e6, 3),
            "write_p99_ms": round(write["clat_ns"]["percentile"]["99.000000"] / 1e6, 3),
        }


def main():
    out = Path(sys.argv[1])
    rows = list(runs(out))
    if not rows:
        sys.exit(f"no fio results in {out / 'fio'}")
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    def median(rtt, mode, workload, field):
        values = [r[field] for r in rows if (r["rtt_ms"], r["mode"], r["workload"]) == (rtt, mode, workload) and r[field] is not None]
        return statistics.median(values) if values else None

    print(f"{'RTT':>5}  {'workload':<10} {'sync IOPS':>10} {'proactive IOPS':>15} {'ratio':>6} {'sync ms/write':>14} {'pro ms/write':>13}")
    for rtt in sorted({r["rtt_ms"] for r in rows}):
        for workload in ("qd1-fsync", "qd32"):
            s, p = median(rtt, "sync", workload, "iops"), median(rtt, "proactive", workload, "iops")
            if s is None or p is None:
                continue
            print(f"{rtt:>3}ms  {workload:<10} {s:>10.0f} {p:>15.0f} {s / p:>6.2f} {median(rtt, 'sync', workload, 'ms_per_write'):>14.2f}"
                  f" {median(rtt, 'proactive', workload, 'ms_per_write'):>13.2f}")
    print("goals:")
    for workload in ("qd1-fsync", "qd32"):
        s, p = median(0, "sync", workload, "iops"), median(0, "proactive", workload, "iops")
        if s is not None and p is not None:
            print(f"  0 ms {workload}: sync/proactive {s / p:.2f} (goal >= 0.70): {'met' if s / p >= 0.7 else 'NOT met'}")
    zero, far = median(0, "sync", "qd1-fsync", "ms_per_write"), median(75, "sync", "qd1-fsync", "ms_per_write")
    if zero is not None and far is not None:
        print(f"  75 ms qd1-fsync: {far:.1f} ms per write against {zero:.1f} at 0 ms (goal <= {zero + 80:.1f}): "
              f"{'met' if far <= zero + 80 else 'NOT met'}")
    print(f"results: {out / 'results.csv'}")


if __name__ == "__main__":
    main()
