#!/usr/bin/env python3
"""Summary of a replay.sh run: summary.csv, the table with the goal checks, the plot.

Usage: report.py OUT_DIR MODE...     (reads OUT_DIR/MODE.summary.csv and MODE.series.csv)

Writes OUT_DIR/summary.csv, OUT_DIR/summary.txt and OUT_DIR/dbench-trace.png (when
gnuplot is installed), prints the table. Exit code 0 whether or not the goals are met.
"""
import csv
import math
import os
import shutil
import subprocess
import sys


def load(out, modes):
    rows = []
    for mode in modes:
        path = os.path.join(out, f"{mode}.summary.csv")
        if not os.path.exists(path):
            print(f"report: no result for {mode} ({path})", file=sys.stderr)
            continue
        with open(path) as f:
            rows.extend(csv.DictReader(f))
    return rows


def goals(by):
    """(text, met) per goal; met is None when a mode is missing."""
    p, o, s = by.get("proactive"), by.get("on-demand"), by.get("sync")
    out = []
    if p and o:
        lp, lo = float(p["local_share_window"]), float(o["local_share_window"])
        met = None if math.isnan(lp) or math.isnan(lo) else lp >= 2 * lo
        out.append((f"proactive local read share >= 2x on-demand's: {lp:.1%} vs 2 x {lo:.1%}", met))
    else:
        out.append(("proactive local read share >= 2x on-demand's: needs both modes", None))
    if p and s:
        wp = float(p["wan_ab_mib"]) + float(p["wan_ba_mib"])
        ws = float(s["wan_ab_mib"]) + float(s["wan_ba_mib"])
        out.append((f"proactive WAN bytes < sync's: {wp:.1f} MiB vs {ws:.1f} MiB", wp < ws))
    else:
        out.append(("proactive WAN bytes < sync's: needs both modes", None))
    if p and len(by) > 1:
        others = {m: float(r["completion_s"]) for m, r in by.items() if m != "proactive"}
        cp = float(p["completion_s"])
        text = ", ".join(f"{m} {c:.2f} s" for m, c in others.items())
        out.append((f"proactive finishes first: {cp:.2f} s vs {text}", all(cp < c for c in others.values())))
    else:
        out.append(("proactive finishes first: needs proactive and another mode", None))
    return out


def table(rows):
    head = ["mode", "completion s", "local reads at B", "reads at B", "WAN MiB A->B", "WAN MiB B->A",
            "move pause s", "lag p50/max s", "errors"]
    lines = [head]
    for r in rows:
        share = float(r["local_share_window"])
        lines.append([r["mode"], f"{float(r['completion_s']):.1f}",
                      "n/a" if math.isnan(share) else f"{share:.1%}", r["reads_at_b_window_blocks"],
                      f"{float(r['wan_ab_mib']):.1f}", f"{float(r['wan_ba_mib']):.1f}",
                      f"{float(r['move_pause_s']):.2f}",
                      f"{float(r['lag_p50_ms']) / 1e3:.1f}/{float(r['lag_max_ms']) / 1e3:.1f}", r["errors"]])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    return "\n".join("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths)))
                     for line in lines)


def plot(out, rows):
    """Fig. 12 (throughput per second, one panel per mode, the move dashed) and Fig. 13
    (WAN MiB each way per mode; completion time per mode)."""
    if not shutil.which("gnuplot"):
        print("report: gnuplot not installed (bin/install-packages gnuplot-nox): no PNG", file=sys.stderr)
        return None
    n = len(rows)
    xmax = max(float(r["completion_s"]) for r in rows) + 1
    ymax = 0.0
    for r in rows:
        with open(os.path.join(out, f"{r['mode']}.series.csv")) as f:
            ymax = max([ymax] + [float(x["mib"]) for x in csv.DictReader(f)])
    bars = os.path.join(out, "bars.dat")
    with open(bars, "w") as f:
        f.write("mode completion_s wan_ab_mib wan_ba_mib\n")
        for r in rows:
            f.write(f"{r['mode']} {r['completion_s']} {r['wan_ab_mib']} {r['wan_ba_mib']}\n")
    png = os.path.join(out, "dbench-trace.png")
    gp = [f"set terminal pngcairo size 1200,{300 * n + 320} font ',10'" if has_cairo() else
          f"set terminal png size 1200,{300 * n + 320}",
          f"set output '{png}'", "set datafile separator ','", "set key top right",
          f"set multiplot layout {n + 1},1 title 'DBENCH block trace replayed, VM moved virginia -> taiwan'"]
    for r in rows:
        series = os.path.join(out, f"{r['mode']}.series.csv")
        move = float(r["move_s"])
        gp += [f"set title '{r['mode']}: {float(r['completion_s']):.1f} s, "
               f"{float(r['local_share_window']):.0%} of reads at taiwan local after the move'",
               f"set xrange [0:{xmax:.0f}]", f"set yrange [0:{ymax * 1.1 + 1:.0f}]",
               "set xlabel 'seconds'", "set ylabel 'MiB/s'",
               f"set arrow 1 from {move},graph 0 to {move},graph 1 nohead dashtype 2 lw 2",
               f"plot '{series}' skip 1 using 1:6 with steps lw 2 title 'read+write', "
               f"'' skip 1 using 1:4 with steps title 'read'",
               "unset arrow 1"]
    gp += [
           "set datafile separator whitespace", "set style data histograms",
           "set style histogram clustered gap 1", "set style fill solid 0.8 border -1",
           "set title 'WAN traffic during the replay (Fig. 13b)'", "set ylabel 'MiB'", "unset xlabel",
           "set key top left",
           "set xrange [*:*]", "set yrange [0:*]", "set xtics nomirror",
           f"plot '{bars}' using 3:xtic(1) title 'virginia -> taiwan', '' using 4 title 'taiwan -> virginia'",
           "unset multiplot"]
    script = os.path.join(out, "plot.gp")
    with open(script, "w") as f:
        f.write("\n".join(line for line in gp if line) + "\n")
    res = subprocess.run(["gnuplot", script], capture_output=True, text=True)
    if res.returncode != 0:
        print(f"report: gnuplot failed: {res.stderr.strip()}", file=sys.stderr)
        return None
    return png


def has_cairo():
    res = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    return "pngcairo" in res.stdout + res.stderr


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 1
    out, modes = argv[0], argv[1:]
    rows = load(out, modes)
    if not rows:
        return 1
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    by = {r["mode"]: r for r in rows}
    text = [table(rows), ""]
    for goal, met in goals(by):
        text.append(f"{'n/a ' if met is None else 'PASS' if met else 'FAIL'}  {goal}")
    png = plot(out, rows)
    if png:
        text += ["", f"plot: {png}"]
    report = "\n".join(text)
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(report + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
