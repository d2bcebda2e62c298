#!/usr/bin/env python3
"""Tables and plots for the migration baselines (standard library; gnuplot for the PNGs,
through the geo benchmarks' helpers).

  migration_report.py plain-qemu CSV PNG     per direction: median, min, max of each time
  migration_report.py drive-mirror CSV PNG   per direction: times and WAN bytes
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "geo"))
from geo_report import fmt, gnuplot, print_table, read_csv  # noqa: E402


def summary_rows(rows, columns):
    """One line per direction and one for all: median [min..max] of each column."""
    table = [["direction", "n"] + [label for label, _, _ in columns]]
    directions = sorted({(r["from"], r["to"]) for r in rows})
    for name, subset in [(f"{f} -> {t}", [r for r in rows if (r["from"], r["to"]) == (f, t)])
                         for f, t in directions] + [("all", rows)]:
        cells = [name, str(len(subset))]
        for _, key, scale in columns:
            values = [float(r[key]) / scale for r in subset if r[key] not in ("", "None")]
            cells.append("-" if not values else
                         f"{fmt(statistics.median(values))} [{fmt(min(values))}..{fmt(max(values))}]")
        table.append(cells)
    return table


def bars(csv_path, png, title, ylabel, series):
    """A clustered bar chart, one cluster per migration, one bar per (column number, label)."""
    plots = ", ".join(f"'{csv_path}' using {col}:xtic(1) title '{label}'" for col, label in series)
    gnuplot(f"""set title '{title}'
set datafile separator ','
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key autotitle columnhead
set xlabel 'migration (odd: virginia -> taiwan, even: back)'
set ylabel '{ylabel}'
set yrange [0:*]
plot {plots}
""", png)


def plain_qemu(csv_path, png):
    rows = read_csv(csv_path)
    print("times in ms, median [min..max]; guest downtime = source STOP to destination RESUME")
    print_table(summary_rows(rows, [
        ("guest downtime", "guest_downtime_ms", 1),
        ("QEMU downtime", "qemu_downtime_ms", 1),
        ("QEMU total", "qemu_total_ms", 1),
        ("wall", "wall_ms", 1),
        ("RAM MB", "ram_bytes", 1e6),
        ("WAN MB fwd", "wan_forward_bytes", 1e6),
    ]))
    bars(csv_path, png, "Plain QEMU migration, disk on nbdkit (not migrated)", "ms",
         [(5, "guest downtime"), (7, "QEMU downtime")])


def drive_mirror(csv_path, png):
    rows = read_csv(csv_path)
    print("times in s, bytes in MB (10^6), median [min..max]; WAN bytes = both links (NBD + migration)")
    print_table(summary_rows(rows, [
        ("total s", "wall_ms", 1e3),
        ("mirror READY s", "mirror_ready_ms", 1e3),
        ("guest downtime ms", "guest_downtime_ms", 1),
        ("WAN MB fwd", "wan_forward_bytes", 1e6),
        ("WAN kB back", "wan_backward_bytes", 1e3),
    ]))
    bars(csv_path, png, "drive-mirror (libvirt --copy-storage-all) + migration: total time", "ms",
         [(4, "total (wall)"), (5, "mirror READY")])


def main(argv):
    commands = {"plain-qemu": plain_qemu, "drive-mirror": drive_mirror}
    if len(argv) != 3 or argv[0] not in commands:
        sys.exit(__doc__)
    commands[argv[0]](*argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
