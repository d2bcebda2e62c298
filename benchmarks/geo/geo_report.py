#!/usr/bin/env python3
"""Tables and plots for the geo benchmarks (standard library; gnuplot for the PNGs).

  geo_report.py cold-read CSV LINK_BYTES_PER_S PNG
      median table of cold-read.csv, ours/peer and % of link, with the goals
  geo_report.py propagation SAMPLES_CSV RUNS_CSV LINK_BYTES_PER_S PNG
      per run of propagation-samples.csv: push rate while the queue was full and the
      most bytes in any 1 s window; writes RUNS_CSV, prints the table, plots
  geo_report.py local-ab CSV PNG
      medians per build and the per-round ratios (median, min, max) of local-ab.csv
  geo_report.py sustained CSV SECONDS WINDOW
      the sustained job of local-ab.sh: mean, first and last window, last/first per site
"""
import csv
import os
import shutil
import statistics
import subprocess
import sys
from collections import OrderedDict


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def print_table(rows, right_from=1):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [str(c).ljust(w) if i < right_from else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def verdict(ok):
    return "PASS" if ok else "FAIL"


def gnuplot(script, png):
    """Runs a gnuplot script that draws into png; pngcairo when this gnuplot has it."""
    if not shutil.which("gnuplot"):
        print(f"(no gnuplot: {png} not written)")
        return
    terminals = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    term = "pngcairo size 1000,560 font ',10'" if "pngcairo" in terminals.stdout + terminals.stderr \
        else "png size 1000,560"
    full = f"set terminal {term}\nset output '{png}'\nset grid\nset key below\n" + script
    gp = os.path.splitext(png)[0] + ".gp"
    with open(gp, "w") as f:
        f.write(full)
    result = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if result.returncode != 0:
        print(f"(gnuplot failed, see {gp}: {result.stderr.strip()})")


# ---------------------------------------------------------------------------- cold read

def cold_read(path, link_bytes, png):
    link_bytes = float(link_bytes)
    rows = read_csv(path)
    by = OrderedDict((("heliotrope", []), ("nbdkit", [])))
    for r in rows:
        by.setdefault(r["server"], []).append(r)
    table = [["server", "rounds", "median s", "median MB/s", "min MB/s", "max MB/s",
              "% of link", "WAN MB/read"]]
    med = {}
    for server, rs in by.items():
        if not rs:
            continue
        mbps = [float(r["mb_per_s"]) for r in rs]
        med[server] = statistics.median(mbps)
        wan = [float(r["wan_bytes"]) for r in rs if r["wan_bytes"]]
        table.append([server + (" (ours)" if server == "heliotrope" else " file + link (peer)"),
                      len(rs), fmt(statistics.median(float(r["seconds"]) for r in rs), 2),
                      fmt(med[server]), fmt(min(mbps)), fmt(max(mbps)),
                      fmt(100 * med[server] * 1e6 / link_bytes),
                      fmt(statistics.median(wan) / 1e6) if wan else "-"])
    print_table(table)
    print(f"\nlink: {link_bytes / 1e6:.1f} MB/s per direction. MB = 10^6 bytes. "
          "Medians over rounds; ours and the peer alternate within each round.")
    if "heliotrope" in med and "nbdkit" in med:
        ratio = med["heliotrope"] / med["nbdkit"]
        pct = 100 * med["heliotrope"] * 1e6 / link_bytes
        print(f"ours/peer (median MB/s):  {ratio:.2f}   goal >= 1.00   {verdict(ratio >= 1.0)}")
        print(f"ours, % of the link:      {pct:.1f}%  goal >= 80%    {verdict(pct >= 80)}")
    data = os.path.splitext(png)[0] + ".dat"
    with open(data, "w") as f:
        for server in by:
            f.write(f"# {server}\n")
            for r in by[server]:
                f.write(f"{r['round']} {r['mb_per_s']}\n")
            f.write("\n\n")
    link_mb = link_bytes / 1e6
    gnuplot(f"""set title 'Cold read after a move: whole image at taiwan vs nbdkit file through the same link'
set xlabel 'round'
set ylabel 'MB/s (10^6 bytes/s)'
set yrange [0:{link_mb * 1.15:.1f}]
set xtics 1
set offsets 0.5, 0.5, 0, 0
plot '{data}' index 0 using 1:2 with linespoints pt 7 ps 1.5 lw 2 title 'Heliotrope (taiwan, on-demand)', \\
     '{data}' index 1 using 1:2 with linespoints pt 5 ps 1.5 lw 2 title 'nbdkit file + link (peer)', \\
     {link_mb:.3f} with lines dt 2 lw 2 lc rgb 'black' title 'link bandwidth', \\
     {0.8 * link_mb:.3f} with lines dt 3 lw 2 lc rgb 'red' title '80% of link (goal)'
""", png)


# -------------------------------------------------------------------------- propagation

def window_max(samples, width=1.0, strict=True):
    """Most bytes counted between two samples (t_lo, t_hi, count), each read somewhere in its
    scrape [t_lo, t_hi]. strict: only pairs certainly within `width` seconds (first scrape's
    start to second's end), a lower bound of the true maximum; loose: pairs possibly within
    it (first's end to second's start), an upper bound over the same pairs."""
    best, j = 0.0, 0
    for i, (lo_i, hi_i, b_i) in enumerate(samples):
        j = max(j, i)
        while j + 1 < len(samples) and (samples[j + 1][1] - lo_i if strict else samples[j + 1][0] - hi_i) <= width:
            j += 1
        best = max(best, samples[j][2] - b_i)
    return best


def span_rate(s, key):
    """(seconds, bytes/s) from the last sample before `key` first grows after the write
    started to the first sample at which it holds its final value: the push stream from its
    first byte to its last, queue full (or the last copies in flight) all along."""
    first = next((i for i in range(len(s)) if s[i]["phase"] != "before"), None)
    if first is None:
        return None, None
    grow = next((i for i in range(max(first, 1), len(s)) if s[i][key] > s[i - 1][key]), None)
    if grow is None:
        return None, None
    final = s[-1][key]
    done = next(i for i in range(grow, len(s)) if s[i][key] == final)
    a = grow - 1
    dt = s[done]["t"] - s[a]["t"]
    return (dt, (s[done][key] - s[a][key]) / dt) if dt > 0 else (None, None)


def analyze_run(samples):
    """samples: list of dicts with t, phase, pushed, received, queue (numbers)."""
    s = samples
    w = [x for x in s if x["phase"] != "before"]
    full_s, rate = span_rate(s, "pushed")
    _, rate_rx = span_rate(s, "received")
    return {"pushed_total": s[-1]["pushed"] - w[0]["pushed"] if w else 0,
            "received_total": s[-1]["received"] - w[0]["received"] if w else 0,
            "full_s": full_s, "full_rate": rate, "full_rate_received": rate_rx,
            "max_1s": window_max([(x["t_lo"], x["t_hi"], x["pushed"]) for x in s]),
            "max_1s_loose": window_max([(x["t_lo"], x["t_hi"], x["pushed"]) for x in s], strict=False),
            "max_1s_received": window_max([(x["t_rx_lo"], x["t_rx_hi"], x["received"]) for x in s]),
            "max_1s_received_loose": window_max([(x["t_rx_lo"], x["t_rx_hi"], x["received"]) for x in s],
                                                strict=False),
            "max_queue": max(x["queue"] for x in s)}


def propagation(samples_path, runs_path, link_bytes, png):
    link_bytes = float(link_bytes)
    runs = OrderedDict()
    for r in read_csv(samples_path):
        key = (int(r["run"]), r["kind"], float(r["cap_bytes_per_s"]))
        runs.setdefault(key, []).append({
            "t": float(r["t"]), "phase": r["phase"], "pushed": float(r["pushed_bytes"]),
            "received": float(r["received_bytes"]), "queue": float(r["queue"]),
            "t_lo": float(r["t_lo"]), "t_hi": float(r["t_hi"]),
            "t_rx_lo": float(r["t_rx_lo"]), "t_rx_hi": float(r["t_rx_hi"])})
    results = []
    for (run, kind, cap), samples in runs.items():
        a = analyze_run(samples)
        a.update(run=run, kind=kind, cap=cap)
        results.append(a)
    with open(runs_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "kind", "cap_bytes_per_s", "pushed_bytes", "received_bytes", "max_queue_blocks",
                    "full_seconds", "full_bytes_per_s", "full_percent_of_link", "received_bytes_per_s",
                    "max_1s_window_bytes", "max_1s_percent_of_cap", "max_1s_window_bytes_loose",
                    "max_1s_window_received_bytes", "max_1s_window_received_bytes_loose"])
        for a in results:
            w.writerow([a["run"], a["kind"], f"{a['cap']:.0f}", f"{a['pushed_total']:.0f}",
                        f"{a['received_total']:.0f}", f"{a['max_queue']:.0f}",
                        fmt(a["full_s"], 3), fmt(a["full_rate"], 0),
                        fmt(a["full_rate"] and 100 * a["full_rate"] / link_bytes),
                        fmt(a["full_rate_received"], 0), f"{a['max_1s']:.0f}",
                        fmt(100 * a["max_1s"] / a["cap"]) if a["cap"] else "-",
                        f"{a['max_1s_loose']:.0f}", f"{a['max_1s_received']:.0f}",
                        f"{a['max_1s_received_loose']:.0f}"])
    table = [["run", "cap MB/s", "pushed MB", "queue max", "full s", "push MB/s", "% of link",
              "rx MB/s", "max 1 s MB", "% of cap", "loose", "rx", "rx loose"]]
    for a in results:
        table.append([f"{a['run']} {a['kind']}", fmt(a["cap"] / 1e6) if a["cap"] else "none",
                      fmt(a["pushed_total"] / 1e6), f"{a['max_queue']:.0f}", fmt(a["full_s"], 2),
                      fmt(a["full_rate"] and a["full_rate"] / 1e6),
                      fmt(a["full_rate"] and 100 * a["full_rate"] / link_bytes),
                      fmt(a["full_rate_received"] and a["full_rate_received"] / 1e6),
                      fmt(a["max_1s"] / 1e6, 2)] + [
                          fmt(100 * a[k] / a["cap"]) if a["cap"] else "-"
                          for k in ("max_1s", "max_1s_loose", "max_1s_received", "max_1s_received_loose")])
    print_table(table)
    print(f"\nlink: {link_bytes / 1e6:.1f} MB/s. MB = 10^6 bytes. 'push MB/s': virginia's "
          "heliotrope_propagation_pushed_bytes_total{destination=\"taiwan\"}\n(block data plus each copy's "
          "number and version, counted as each push goes out) from the last sample before it first grew\n"
          "after the write started to the first sample at its final value, over that time ('full s'); "
          "'rx MB/s': the same for\ntaiwan's heliotrope_peer_bytes_total{direction=\"received\"}. "
          "'max 1 s MB': the most pushed bytes between two samples whose scrapes lie within 1 s\n"
          "(strict: the true window is never longer), '% of cap' that against the cap; 'loose': "
          "pairs whose scrapes may lie\nwithin 1 s (windows up to a few ms longer); 'rx', 'rx loose': "
          "the same for taiwan's received bytes. "
          "The goals are judged on the pushed bytes, the counter the cap governs.")
    free = [a["full_rate"] for a in results if not a["cap"] and a["full_rate"]]
    capped = [a for a in results if a["cap"]]
    if free:
        pct = 100 * statistics.median(free) / link_bytes
        print(f"uncapped, median push rate while the queue was full: {statistics.median(free) / 1e6:.1f} MB/s = "
              f"{pct:.1f}% of the link   goal >= 80%   {verdict(pct >= 80)}")
    if capped:
        worst = max(capped, key=lambda a: a["max_1s"] / a["cap"])
        ok = all(a["max_1s"] <= a["cap"] for a in capped)
        loose = max(capped, key=lambda a: a["max_1s_loose"] / a["cap"])
        print(f"capped, most bytes in any 1 s window: {worst['max_1s'] / 1e6:.2f} MB = "
              f"{100 * worst['max_1s'] / worst['cap']:.1f}% of the cap ({worst['cap'] / 1e6:.2f} MB/s)   "
              f"goal <= 100%   {verdict(ok)}")
        print(f"capped, loose windows (up to a few ms over 1 s): {loose['max_1s_loose'] / 1e6:.2f} MB = "
              f"{100 * loose['max_1s_loose'] / loose['cap']:.1f}% of the cap")
        if any(a["full_rate"] for a in capped):
            rate = statistics.median(a["full_rate"] for a in capped if a["full_rate"])
            print(f"capped, median push rate while the queue was full: {rate / 1e6:.1f} MB/s = "
                  f"{100 * rate / worst['cap']:.1f}% of the cap")

    # Plot: the push rate over a trailing 1 s window, per run, time from the write's start.
    data = os.path.splitext(png)[0] + ".dat"
    titles = []
    with open(data, "w") as f:
        for (run, kind, cap), s in runs.items():
            t0 = next((x["t"] for x in s if x["phase"] == "writing"), s[0]["t"])
            f.write(f"# run {run} {kind}\n")
            j = 0
            for x in s:
                # From the last sample at least 1 s before this one (the first, early on).
                while j + 1 < len(s) and s[j + 1]["t"] <= x["t"] - 1.0:
                    j += 1
                dt = x["t"] - s[j]["t"]
                rate = (x["pushed"] - s[j]["pushed"]) / dt / 1e6 if dt > 0 else 0.0
                f.write(f"{x['t'] - t0:.3f} {rate:.3f} {x['queue']:.0f}\n")
            f.write("\n\n")
            titles.append(f"run {run}, " + (f"cap {cap / 1e6:.1f} MB/s" if cap else "no cap"))
    plots = [f"'{data}' index {i} using 1:2 with lines lw 2 title '{t}'" for i, t in enumerate(titles)]
    plots.append(f"{link_bytes / 1e6:.3f} with lines dt 2 lw 2 lc rgb 'black' title 'link'")
    plots.append(f"{0.8 * link_bytes / 1e6:.3f} with lines dt 3 lw 1 lc rgb 'gray40' title '80% of link'")
    for cap in sorted({c for (_, _, c) in runs if c}):
        plots.append(f"{cap / 1e6:.3f} with lines dt 4 lw 2 lc rgb 'red' title 'cap {cap / 1e6:.1f} MB/s'")
    gnuplot(f"""set title 'Propagation: push rate virginia -> taiwan (pushed bytes over the trailing second or more)'
set xlabel 'seconds since the write started'
set ylabel 'MB/s (10^6 bytes/s)'
set yrange [0:{link_bytes / 1e6 * 1.2:.1f}]
plot {', '.join(plots)}
""", png)


# ----------------------------------------------------------------------------- local A/B

BUILDS = ["prev", "cur", "prev-ctl", "cur-ctl"]
LABEL = {"prev": "previous", "cur": "this", "prev-ctl": "previous+ctl", "cur-ctl": "this+ctl", "cur-push": "this+push"}
# Each build against the previous one run the same way.
BASELINE = {"cur": "prev", "cur-ctl": "prev-ctl"}


def local_ab(path, png):
    vals = OrderedDict()  # (job, unit) -> build -> round -> value
    for r in read_csv(path):
        vals.setdefault((r["job"], r["unit"]), {}).setdefault(r["build"], {})[int(r["round"])] = float(r["value"])
    present = [b for b in BUILDS if any(b in v for v in vals.values())]
    pairs = [(b, BASELINE[b]) for b in present if b in BASELINE and BASELINE[b] in present]
    header = ["job", "unit"] + [LABEL[b] for b in present] + \
        [f"{LABEL[a]}/{LABEL[b]} median [min, max]" for a, b in pairs]
    table = [header]
    plot_rows = []
    for (job, unit), by in vals.items():
        line = [job, unit] + [fmt(statistics.median(by[b].values()), 0 if unit == "IOPS" else 1)
                              if b in by else "-" for b in present]
        prow = [job]
        for a, b in pairs:
            rounds = sorted(set(by.get(a, {})) & set(by.get(b, {})))
            ratios = [by[a][r] / by[b][r] for r in rounds if by[b][r]]
            if ratios:
                m = statistics.median(ratios)
                line.append(f"{m:.2f} [{min(ratios):.2f}, {max(ratios):.2f}]")
                prow += [m, min(ratios), max(ratios)]
            else:
                line.append("-")
                prow += [float("nan")] * 3
        table.append(line)
        plot_rows.append(prow)
    print_table(table, right_from=2)
    print("\nMedians over rounds; a ratio is per round (the same round's jobs ran back to back, "
          "order rotating),\nthen its median, min and max over rounds; > 1 means this build is faster. "
          "MB/s = 10^6 bytes/s.\nprevious, this = each build's standalone site; previous+ctl, this+ctl = "
          "each build's site with a controller\n(its helio up), the image open for write under its lease.")
    if not pairs:
        return
    data = os.path.splitext(png)[0] + ".dat"
    with open(data, "w") as f:
        for i, row in enumerate(plot_rows):
            f.write(f"{i} \"{row[0]}\" " + " ".join(f"{v:.4f}" for v in row[1:]) + "\n")
    n = len(pairs)
    width = 0.8 / n
    plots = []
    for k, (a, b) in enumerate(pairs):
        off = -0.4 + width * (k + 0.5)
        c = 3 + 3 * k
        plots.append(f"'{data}' using ($1+{off:.3f}):{c}:{c + 1}:{c + 2} with yerrorbars pt 7 ps 1.5 lw 2 "
                     f"title '{LABEL[a]}/{LABEL[b]} (median, min-max)'")
    plots.append("1 with lines dt 2 lc rgb 'black' title 'equal'")
    gnuplot(f"""set title 'Local read and write path: this build vs the previous one (ratio per round)'
set ylabel 'ratio (> 1: this build faster)'
set xrange [-0.6:{len(plot_rows) - 0.4}]
set xtics rotate by -20
set xtics ({', '.join(f'"{r[0]}" {i}' for i, r in enumerate(plot_rows))})
set yrange [0:*]
plot {', '.join(plots)}
""", png)


def sustained(path, seconds, window):
    rows = read_csv(path)
    table = [["site", "mean IOPS", f"first {window} s", f"last {window} s", "last/first", "pushed MB/s"]]
    for r in rows:
        table.append([LABEL.get(r["build"], r["build"]), fmt(float(r["mean_iops"]), 0), fmt(float(r["first_iops"]), 0),
                      fmt(float(r["last_iops"]), 0), f"{float(r['last_over_first']):.2f}", r["pushed_mb_per_s"] or "-"])
    print(f"Sustained: 4 KiB random writes at QD32 for {seconds} s, once per site, IOPS per second logged.")
    print_table(table, right_from=1)
    print("this+push = this build with a controller on an image created with --s 0 and every move to taiwan, "
          "so that each block written is pushed there during the job.")


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["cold-read"] and len(args) == 4:
        cold_read(*args[1:])
    elif args[:1] == ["propagation"] and len(args) == 5:
        propagation(*args[1:])
    elif args[:1] == ["local-ab"] and len(args) == 3:
        local_ab(*args[1:])
    elif args[:1] == ["sustained"] and len(args) == 4:
        sustained(*args[1:])
    else:
        sys.exit(__doc__)
