#!/usr/bin/env python3
"""Tables and plots for the migration baselines (standard library; gnuplot for the PNGs,
through the geo benchmarks' helpers).

  migration_report.py plain-qemu CSV PNG     per direction: median, min, max of each time
  migration_report.py drive-mirror CSV PNG   per direction: times and WAN bytes
  migration_report.py heliotrope DIR RTT     heliotrope.sh's DIR/heliotrope.csv and
                                             heliotrope-storage.csv, the handoff goals; DIR/heliotrope.png
  migration_report.py compare DIR RTT        compare.sh's run: DIR/{plain-qemu,drive-mirror,heliotrope}/*.csv
                                             side by side with every goal; DIR/compare.csv, compare.png
  migration_report.py ensemble DIR RTT       ensemble.sh's DIR/ensemble.csv: together vs one by one; DIR/ensemble.png
"""
import csv
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "geo"))
from geo_report import fmt, gnuplot, print_table, read_csv, verdict  # noqa: E402

THERE, BACK = ("virginia", "taiwan"), ("taiwan", "virginia")
LOG_SCALE = """set xtics rotate by 30 right
set logscale y
set yrange [1:*]"""


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


def histogram(png, title, plots, extra=""):
    """A clustered bar chart of CSV columns (gnuplot PLOTS), the first row the series' names."""
    gnuplot(f"""set title '{title}'
set datafile separator ','
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key autotitle columnhead
{extra}
plot {plots}
""", png)


def bars(csv_path, png, title, ylabel, series):
    """A clustered bar chart, one cluster per migration, one bar per (column number, label)."""
    plots = ", ".join(f"'{csv_path}' using {col}:xtic(1) title '{label}'" for col, label in series)
    histogram(png, title, plots, f"""set xlabel 'migration (odd: virginia -> taiwan, even: back)'
set ylabel '{ylabel}'
set yrange [0:*]""")


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


def rtt_ms(text):
    """75ms, 0.2s, 500us -> milliseconds."""
    m = re.fullmatch(r"([0-9.]+)\s*(ns|us|ms|s)", text.strip())
    if not m:
        sys.exit(f"RTT '{text}': expected a number followed by ns, us, ms or s")
    return float(m.group(1)) * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[m.group(2)]


def values(rows, key, direction=None, scale=1):
    return [float(r[key]) / scale for r in rows
            if r[key] not in ("", "None") and (direction is None or (r["from"], r["to"]) == direction)]


def spread(vs, unit=""):
    """median [min..max] of vs, or '-'."""
    if not vs:
        return "-"
    return f"{fmt(statistics.median(vs))} [{fmt(min(vs))}..{fmt(max(vs))}]{unit}"


def median(vs):
    return statistics.median(vs) if vs else None


def within(vs, limit):
    """'PASS (n/m within)' on the median; the count says how many migrations met the goal."""
    if not vs or limit is None:
        return "-"
    return f"{verdict(statistics.median(vs) <= limit)} ({sum(v <= limit for v in vs)}/{len(vs)} within)"


def handoff_goals(rtt):
    """The issue's handoff goals in ms: (direction, goal, moonshot)."""
    return [(THERE, 50.0, None), (BACK, 2 * rtt + 50, rtt + 50)]


def goal_text(goal, moonshot):
    return f"<= {fmt(goal)} ms" + ("" if moonshot is None else f" (moonshot <= {fmt(moonshot)})")


def goal_verdict(vs, goal, moonshot):
    text = within(vs, goal)
    return text if moonshot is None or not vs else f"{text}; moonshot {verdict(statistics.median(vs) <= moonshot)}"


def optional_csv(path):
    return read_csv(path) if os.path.exists(path) else []


def heliotrope(out_dir, rtt):
    rtt = rtt_ms(rtt)
    rows = optional_csv(os.path.join(out_dir, "heliotrope.csv"))
    storage = optional_csv(os.path.join(out_dir, "heliotrope-storage.csv"))
    if rows:
        print("records guest, times in ms, median [min..max]; handoff = source pre-switchover to device")
        print_table(summary_rows(rows, [
            ("handoff", "handoff_ms", 1),
            ("guest downtime", "guest_downtime_ms", 1),
            ("total", "total_ms", 1),
            ("RAM MB", "ram_bytes", 1e6),
            ("pushed kB", "storage_pushed_bytes", 1e3),
            ("peer kB fwd", "peer_forward_bytes", 1e3),
        ]))
        print()
        table = [["goal", "median handoff", "goal", "verdict"]]
        for direction, goal, moonshot in handoff_goals(rtt):
            vs = values(rows, "handoff_ms", direction)
            table.append([f"handoff {direction[0]} -> {direction[1]}", spread(vs, " ms"), goal_text(goal, moonshot),
                          goal_verdict(vs, goal, moonshot)])
        print_table(table)
        bars(os.path.join(out_dir, "heliotrope.csv"), os.path.join(out_dir, "heliotrope.png"),
             "Heliotrope live migration of the records guest", "ms", [(7, "handoff"), (6, "guest downtime")])
    if storage:
        print()
        print("storage case, virginia -> taiwan; WAN = peer (storage) bytes + RAM; times in s, bytes in MB")
        print_table(summary_rows(storage, [
            ("total s", "total_ms", 1e3),
            ("guest downtime ms", "guest_downtime_ms", 1),
            ("pushed MB", "storage_pushed_bytes", 1e6),
            ("WAN MB fwd", "wan_forward_bytes", 1e6),
            ("WAN MB back", "wan_backward_bytes", 1e6),
        ]))


def compare(out_dir, rtt):
    """One table: Heliotrope beside plain QEMU and drive-mirror, with the issue's goals."""
    rtt = rtt_ms(rtt)
    ours = read_csv(os.path.join(out_dir, "heliotrope", "heliotrope.csv"))
    storage = optional_csv(os.path.join(out_dir, "heliotrope", "heliotrope-storage.csv"))
    plain = read_csv(os.path.join(out_dir, "plain-qemu", "plain-qemu.csv"))
    mirror = optional_csv(os.path.join(out_dir, "drive-mirror", "drive-mirror.csv"))
    plain_downtime = median(values(plain, "guest_downtime_ms"))
    # measure, unit, heliotrope values, baseline name, baseline values, goal, verdict
    lines = []
    for direction, goal, moonshot in handoff_goals(rtt):
        vs = values(ours, "handoff_ms", direction)
        lines.append((f"handoff {direction[0][0]}->{direction[1][0]}", "ms", vs, "-", [], goal_text(goal, moonshot),
                      goal_verdict(vs, goal, moonshot)))
    for direction, _, _ in handoff_goals(rtt):
        vs = values(ours, "guest_downtime_ms", direction)
        handoff = median(values(ours, "handoff_ms", direction))
        limit = None if plain_downtime is None or handoff is None else plain_downtime + handoff + 20
        lines.append((f"guest downtime {direction[0][0]}->{direction[1][0]}", "ms", vs, "plain QEMU (all)",
                      values(plain, "guest_downtime_ms"), "-" if limit is None else
                      f"<= {fmt(limit)} ms (plain {fmt(plain_downtime)} + handoff {fmt(handoff)} + 20)", within(vs, limit)))
    for direction, _, _ in handoff_goals(rtt):
        lines.append((f"total {direction[0][0]}->{direction[1][0]}", "s", values(ours, "total_ms", direction, 1e3),
                      "plain QEMU wall", values(plain, "wall_ms", direction, 1e3), "-", "-"))
    if storage:
        for label, key, unit, scale, goal in [("storage total", "total_ms", "s", 1e3, True),
                                              ("storage downtime", "guest_downtime_ms", "ms", 1, False),
                                              ("storage WAN fwd", "wan_forward_bytes", "MB", 1e6, True),
                                              ("storage WAN back", "wan_backward_bytes", "kB", 1e3, False)]:
            vs, base = values(storage, key, THERE, scale), values(mirror, "wall_ms" if key == "total_ms" else key, None, scale)
            ratio = None if not vs or not base or median(base) == 0 else median(vs) / median(base)
            result = "-" if ratio is None else f"ours/theirs {ratio:.2f}" + (f" {verdict(ratio < 1)}" if goal else "")
            lines.append((label + " v->t", unit, vs, "drive-mirror (all)", base, "less than drive-mirror" if goal else "-", result))
    table = [["measure", "unit", "Heliotrope median [min..max]", "n", "baseline", "baseline median [min..max]", "n", "goal", "verdict"]]
    with open(os.path.join(out_dir, "compare.csv"), "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["measure", "unit", "heliotrope_median", "heliotrope_min", "heliotrope_max", "heliotrope_n",
                      "baseline", "baseline_median", "baseline_n", "goal", "verdict"])
        for measure, unit, vs, base_name, base, goal, result in lines:
            table.append([measure, unit, spread(vs), str(len(vs)), base_name, spread(base), str(len(base)), goal, result])
            out.writerow([measure, unit, fmt(median(vs), 3), fmt(min(vs) if vs else None, 3), fmt(max(vs) if vs else None, 3), len(vs),
                          base_name, fmt(median(base), 3), len(base), goal, result])
    print(f"Heliotrope beside QEMU alone, one run, {fmt(rtt)} ms RTT; v = virginia, t = taiwan")
    print_table(table, right_from=2)
    plot_compare(out_dir, lines)


def plot_compare(out_dir, lines):
    """compare.png: the medians in ms (handoff, downtime) on the left, storage on the right."""
    data = os.path.join(out_dir, "compare-plot.csv")
    with open(data, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["measure", "Heliotrope", "baseline"])
        for measure, unit, vs, _, base, _, _ in lines:
            if unit == "ms" or measure.startswith("storage"):
                out.writerow([f"{measure} ({unit})", fmt(median(vs), 3) if vs else 0, fmt(median(base), 3) if base else 0])
    histogram(os.path.join(out_dir, "compare.png"), "Heliotrope vs plain QEMU (downtime) and drive-mirror (storage): medians",
              f"'{data}' using 2:xtic(1), '' using 3", LOG_SCALE)


def ensemble(out_dir, rtt):
    """Per way and direction: each member's pause, the largest pause of a move, the spread of its STOPs."""
    rows = read_csv(os.path.join(out_dir, "ensemble.csv"))
    moves = {}
    for r in rows:
        moves.setdefault((r["round"], r["way"], r["from"], r["to"]), []).append(r)
    print(f"{rtt} RTT; times in ms, median [min..max]; pause = source STOP to destination RESUME;")
    print("spread = last source STOP - first source STOP of a move of the three (how long they are split between sites)")
    table = [["way", "direction", "moves", "completed", "pause (each member)", "largest pause of a move", "handoff", "spread"]]
    for way in ("together", "one-by-one"):
        for direction in (THERE, BACK):
            subset = [m for key, m in moves.items() if key[1] == way and (key[2], key[3]) == direction]
            members = [r for m in subset for r in m]
            table.append([way, f"{direction[0]} -> {direction[1]}", str(len(subset)),
                          f"{sum(r['outcome'] == 'completed' for r in members)}/{len(members)}",
                          spread(values(members, "pause_ms")),
                          spread([max(float(r["pause_ms"]) for r in m) for m in subset]),
                          spread(values(members, "handoff_ms")),
                          spread([float(m[0]["spread_ms"]) for m in subset if m[0]["spread_ms"] not in ("", "None")])])
    print_table(table)
    data = os.path.join(out_dir, "ensemble-plot.csv")
    names = sorted({r["vm"] for r in rows})
    with open(data, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["move"] + [f"pause {n}" for n in names] + ["spread"])
        for (rnd, way, frm, to), m in moves.items():
            pauses = {r["vm"]: r["pause_ms"] for r in m}
            out.writerow([f"{rnd} {way} {frm[0]}->{to[0]}"] + [pauses.get(n, 0) for n in names] + [m[0]["spread_ms"] or 0])
    plots = ", ".join(f"'{data}' using {i + 2}{':xtic(1)' if i == 0 else ''}" for i in range(len(names) + 1))
    histogram(os.path.join(out_dir, "ensemble.png"), "Three VMs: together vs one by one: each pause and the STOP spread (ms, log scale)",
              plots, LOG_SCALE)


def main(argv):
    commands = {"plain-qemu": plain_qemu, "drive-mirror": drive_mirror, "heliotrope": heliotrope, "compare": compare,
                "ensemble": ensemble}
    if len(argv) != 3 or argv[0] not in commands:
        sys.exit(__doc__)
    commands[argv[0]](*argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
