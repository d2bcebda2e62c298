#!/usr/bin/env python3
"""Helpers for compare.sh (standard library only).

  report.py fio JSON        -> prints "iops mbps lat_mean_us lat_p99_us io_bytes" for one fio run
  report.py iopslog LOG W   -> prints "first last last/first": mean IOPS of the first and the
                               last W seconds of a fio IOPS log (--log_avg_msec=1000)
  report.py summary CSV     -> prints the median table with ratio columns
"""
import csv
import json
import statistics
import sys
from collections import OrderedDict

SERVERS = ["helio-rocksdb", "helio-memory", "nbd-server", "qemu-nbd",
           "nbdkit-file", "nbdkit-memory"]
# (ours, peer) pairs for the ratio columns; ratio = ours / peer.
RATIOS = [("helio-rocksdb", "nbd-server"), ("helio-rocksdb", "qemu-nbd"),
          ("helio-rocksdb", "nbdkit-file"), ("helio-memory", "nbdkit-memory")]


def fio_metrics(path):
    with open(path) as f:
        text = f.read()
    # fio may print engine chatter ("fio: connected to NBD server") before the JSON.
    data = json.loads(text[text.index("{"):])
    job = data["jobs"][0]  # --group_reporting aggregates all jobs into one entry
    if job.get("error"):
        sys.exit(f"fio job error {job['error']}")
    iops = mbps = 0.0
    lat_mean = lat_p99 = 0.0
    io_bytes = 0
    for ddir in ("read", "write"):
        d = job[ddir]
        if not d["total_ios"]:
            continue
        iops += d["iops"]
        io_bytes += d["io_bytes"]
        mbps += d["bw_bytes"] / 1e6
        lat = d["lat_ns"] if "percentile" in d["lat_ns"] else d["clat_ns"]
        lat_mean = lat["mean"] / 1000
        lat_p99 = lat.get("percentile", {}).get("99.000000", 0) / 1000
    if iops == 0:
        sys.exit("fio did no I/O")
    print(f"{iops:.0f} {mbps:.1f} {lat_mean:.1f} {lat_p99:.1f} {io_bytes}")


def iops_log(path, window):
    # Lines: "msec, value, ddir, bs, offset"; with --log_avg_msec=1000 each value is the
    # mean IOPS of one second. The stamps drift by a few ms per sample (and the last,
    # partial second may be missing), so the windows are counted in samples.
    samples = []
    with open(path) as f:
        for line in f:
            fields = [x.strip() for x in line.split(",")]
            if len(fields) >= 2 and fields[0].isdigit():
                samples.append(float(fields[1]))
    n = max(1, round(float(window)))
    if len(samples) < n:
        sys.exit(f"{path}: {len(samples)} samples, fewer than the {n} of one window")
    a, b = statistics.mean(samples[:n]), statistics.mean(samples[-n:])
    print(f"{a:.0f} {b:.0f} {b / a if a else 0:.3f}")


def fmt(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    return f"{v:.1f}" if v >= 10 else f"{v:.2f}"


# Short names for the ratio column headers.
SHORT = {"helio-rocksdb": "rocks", "helio-memory": "mem", "nbdkit-memory": "nbdkit-mem"}


def summary(path):
    rows = OrderedDict()  # (job, metric, unit) -> server -> [values]
    present = set()
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["job"], r["metric"], r["unit"])
            rows.setdefault(key, {}).setdefault(r["server"], []).append(float(r["value"]))
            present.add(r["server"])
    servers = [s for s in SERVERS if s in present]
    ratios = [(a, b) for a, b in RATIOS if a in present and b in present]
    header = ["job", "metric"] + servers + [
        f"{SHORT.get(a, a)}/{SHORT.get(b, b)}" for a, b in ratios]
    table = [header]
    for (job, metric, unit), by_server in rows.items():
        med = {s: statistics.median(v) for s, v in by_server.items()}
        label = unit if metric in ("iops", "bandwidth") else f"{metric} {unit}".strip()
        line = [job, label] + [fmt(med.get(s)) for s in servers]
        for a, b in ratios:
            line.append(f"{med[a] / med[b]:.2f}" if med.get(a) and med.get(b) else "-")
        table.append(line)
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        cells = [c.ljust(w) if j < 2 else c.rjust(w) for j, (c, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))
    print("\nMedians over rounds (the sustained job runs once). MB/s = 10^6 bytes/s. "
          "Ratios are ours/peer (rocks = helio-rocksdb, mem = helio-memory);\n"
          "higher is better except for the 'us' (latency), 'CPU s/GiB' (server CPU seconds "
          "per GiB the job moved) and\n'RSS MiB' (the server's resident memory right after "
          "the sustained job) rows, where a ratio < 1 means ours uses less.\n"
          "last/first: the sustained job's IOPS in its last window over its first "
          "(the goal is >= 0.9). dbench 'moved GiB': what reached the export.")


if __name__ == "__main__":
    if sys.argv[1:2] == ["iopslog"] and len(sys.argv) == 4:
        iops_log(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] in ("fio", "summary"):
        (fio_metrics if sys.argv[1] == "fio" else summary)(sys.argv[2])
    else:
        sys.exit(__doc__)
