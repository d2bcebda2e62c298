#!/usr/bin/env python3
"""Reads the fio JSON and pgbench output of benchmarks/sync/run.sh, writes results.csv and
prints the table with issue #26's goals: at 0 ms sync >= 0.7x proactive; at 75 ms a QD1 fsync'd write within
1 RTT + 5 ms of the 0 ms figure."""
import csv
import json
import re
import statistics
import sys
from pathlib import Path

NAME = re.compile(r"(?P<rtt>\d+ms|direct)-(?P<mode>sync|proactive)-(?P<workload>qd1-fsync|qd32|pgbench)-(?P<round>\d+)\.(json|txt)")
WORKLOADS = ("qd1-fsync", "qd32", "pgbench")


def named(directory, pattern):
    for path in sorted(directory.glob(pattern)):
        match = NAME.fullmatch(path.name)
        if match:
            yield path, {"rtt": match["rtt"], "mode": match["mode"], "workload": match["workload"], "round": int(match["round"])}


def runs(out):
    """One row per run: for pgbench, 'rate' is transactions a second and 'ms_per_op' their mean latency."""
    for path, row in named(out / "pgbench", "*.txt"):
        text = path.read_text()
        tps = re.search(r"^tps = ([0-9.]+)", text, re.M)
        latency = re.search(r"^latency average = ([0-9.]+) ms", text, re.M)
        if tps and latency:
            yield {**row, "rate": round(float(tps[1]), 1), "ms_per_op": float(latency[1]), "write_p50_ms": None, "write_p99_ms": None}
    for path, row in named(out / "fio", "*.json"):
        write = json.loads(path.read_text())["jobs"][0]["write"]
        iops = write["iops"]
        yield {
            **row,
            "rate": round(iops, 1),
            # A QD1 fsync'd write takes a write and a FLUSH: 1/IOPS is the time of both.
            "ms_per_op": round(1000 / iops, 3) if iops else None,
            "write_p50_ms": round(write["clat_ns"]["percentile"]["50.000000"] / 1e6, 3),
            "write_p99_ms": round(write["clat_ns"]["percentile"]["99.000000"] / 1e6, 3),
        }


def main():
    out = Path(sys.argv[1])
    rows = list(runs(out))
    if not rows:
        sys.exit(f"no results in {out / 'fio'} or {out / 'pgbench'}")
    with open(out / "results.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    def median(rtt, mode, workload, field):
        values = [r[field] for r in rows if (r["rtt"], r["mode"], r["workload"]) == (rtt, mode, workload) and r[field] is not None]
        return statistics.median(values) if values else None

    print("medians; rates are writes a second (fio) or transactions a second (pgbench), ms per write or per transaction")
    print(f"{'RTT':>6}  {'workload':<10} {'sync /s':>10} {'proactive /s':>13} {'ratio':>6} {'sync ms/op':>11} {'pro ms/op':>10}")
    for rtt in sorted({r["rtt"] for r in rows}, key=lambda rtt: -1 if rtt == "direct" else int(rtt[:-2])):
        for workload in WORKLOADS:
            s, p = median(rtt, "sync", workload, "rate"), median(rtt, "proactive", workload, "rate")
            if s is None or p is None:
                continue
            print(f"{rtt:>6}  {workload:<10} {s:>10.0f} {p:>13.0f} {s / p:>6.2f} {median(rtt, 'sync', workload, 'ms_per_op'):>11.2f}"
                  f" {median(rtt, 'proactive', workload, 'ms_per_op'):>10.2f}")
    print("goals:")
    for rtt, label in (("0ms", "0 ms"), ("direct", "0 ms, no emulator")):
        for workload in ("qd1-fsync", "qd32"):
            s, p = median(rtt, "sync", workload, "rate"), median(rtt, "proactive", workload, "rate")
            if s is not None and p is not None:
                print(f"  {label} {workload}: sync/proactive {s / p:.2f} (goal >= 0.70): {'met' if s / p >= 0.7 else 'NOT met'}")
    zero, far = median("0ms", "sync", "qd1-fsync", "ms_per_op"), median("75ms", "sync", "qd1-fsync", "ms_per_op")
    if zero is not None and far is not None:
        print(f"  75 ms qd1-fsync: {far:.1f} ms per write against {zero:.1f} at 0 ms (goal <= {zero + 80:.1f}): "
              f"{'met' if far <= zero + 80 else 'NOT met'}")
    print(f"results: {out / 'results.csv'}")


if __name__ == "__main__":
    main()
