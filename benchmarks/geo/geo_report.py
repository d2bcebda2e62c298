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
  geo_report.py pg-move ARMS_CSV RAW_DIR OUT_DIR
      per arm of pg-move-arms.csv, from RAW_DIR's transaction logs and metric samples:
      writes pg-move-tps.csv, pg-move-runs.csv and pg-move.png into OUT_DIR, prints the
      medians per arm and the goals
"""
import csv
import math
import os
import shutil
import statistics
import subprocess
import sys
from bisect import bisect_left
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


def gnuplot(script, png, size=(1000, 560)):
    """Runs a gnuplot script that draws into png; pngcairo when this gnuplot has it."""
    if not shutil.which("gnuplot"):
        print(f"(no gnuplot: {png} not written)")
        return
    terminals = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    term = f"pngcairo size {size[0]},{size[1]} font ',10'" if "pngcairo" in terminals.stdout + terminals.stderr \
        else f"png size {size[0]},{size[1]}"
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


# ------------------------------------------------------------------------------ pg move

BLOCK = 4096
CASE_TITLE = {"1": "case 1: defaults (proactive)", "2": "case 2: on-demand, no pushes"}
ARM_TITLE = {"default": "default", "pull-off": "--pull off", "pull-block": "--pull on, block order",
             "pull-heat": "--pull on, hottest first"}


def tx_times(path):
    """(end times, start of the first) of the transactions in a pgbench -l log, Unix seconds:
    fields 5 and 6 are the epoch and microseconds of each one's end, field 3 its latency in
    microseconds; failed or skipped ones are left out."""
    times, first = [], None
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 6 and p[2].isdigit():
                end = int(p[4]) + int(p[5]) / 1e6
                times.append(end)
                start = end - int(p[2]) / 1e6
                first = start if first is None else min(first, start)
    return sorted(times), first


def count_between(times, lo, hi):
    return bisect_left(times, hi) - bisect_left(times, lo)


def counter_at(samples, key, t):
    """A counter's value at time t, linear between the samples around it (clamped)."""
    if not samples:
        return 0.0
    if t <= samples[0]["t"]:
        return samples[0][key]
    for a, b in zip(samples, samples[1:]):
        if b["t"] >= t:
            return a[key] + (b[key] - a[key]) * (t - a["t"]) / (b["t"] - a["t"])
    return samples[-1][key]


def gauge_at(samples, key, t):
    """A gauge's last sample at or before t."""
    last = samples[0][key] if samples else 0.0
    for x in samples:
        if x["t"] > t:
            break
        last = x[key]
    return last


def optional(v):
    return float(v) if v not in ("", None) else None


def pg_move_run(a, raw_dir):
    """One arm of one round: (per-second rows, the run's numbers)."""
    tag = f"c{a['case']}-{a['arm']}-r{a['round']}"
    times, t_run = tx_times(os.path.join(raw_dir, tag + ".tx"))
    samples = [{k: float(v) for k, v in r.items()} for r in read_csv(os.path.join(raw_dir, tag + ".samples.csv"))]
    t0, t_bench, t_end = float(a["t0"]), float(a["t_pgbench"]), float(a["t_end"])
    rows = []
    for k in range(1, int(t_end - t0) + 1):
        lo, hi = t0 + k - 1, t0 + k
        rows.append({"t": k, "tps": count_between(times, lo, hi),
                     "pull_mb_s": (counter_at(samples, "pull_bytes", hi) - counter_at(samples, "pull_bytes", lo)) / 1e6,
                     "wan_mb_s": (counter_at(samples, "wan_received_bytes", hi)
                                  - counter_at(samples, "wan_received_bytes", lo)) / 1e6,
                     "elsewhere_blocks": gauge_at(samples, "elsewhere_blocks", hi)})
    after = [x for x in samples if x["t"] >= t0]
    lacked = max((x["lacked_blocks"] for x in after), default=0.0) * BLOCK
    # WAN bytes from the open until elsewhere first reads 0 after it was above 0.
    pull_wan = None
    first = next((i for i, x in enumerate(after) if x["elsewhere_blocks"] > 0), None)
    if lacked and first is not None:
        zero = next((x for x in after[first:] if x["elsewhere_blocks"] == 0), None)
        if zero is not None:
            pull_wan = zero["wan_received_bytes"] - counter_at(samples, "wan_received_bytes", t0)
    tps_a = optional(a["tps_a"])
    # pgbench's run starts with its first transaction (after its vacuum), as at A, whose
    # tps is pgbench's own.
    t_run = t_bench if t_run is None else t_run
    first10 = count_between(times, t_run, t_run + 10) / 10
    # When the sampler first saw nothing elsewhere; the script's own wait only starts after pgbench.
    settled = zero["t"] if lacked and first is not None and zero is not None else optional(a["t_settled"])
    run = {"case": a["case"], "arm": a["arm"], "round": a["round"], "tps_a": tps_a, "tps_b_first10": first10,
           "ratio": first10 / tps_a if tps_a else None, "pg_start_s": float(a["pg_start_s"]),
           "lacked_bytes": lacked, "pull_wan_bytes": pull_wan,
           "wan_over_lacked": pull_wan / lacked if pull_wan is not None else None,
           "redundant": (samples[-1]["redundant_blocks"] - samples[0]["redundant_blocks"]) if samples else 0.0,
           "read_iops_during": optional(a["read_iops_during"]), "read_iops_after": optional(a["read_iops_after"]),
           "tps_b_open10": count_between(times, t0, t0 + 10) / 10,
           "settled_s": settled - t0 if settled is not None else None, "first_tx_s": t_run - t0,
           "has_pull": any(x["has_pull"] for x in samples), "note": a["note"]}
    return rows, run


def median_of(runs, key):
    vals = [r[key] for r in runs if r[key] is not None]
    return statistics.median(vals) if vals else None


def pg_move(arms_path, raw_dir, out_dir):
    arms = read_csv(arms_path)
    if not arms:
        sys.exit("pg-move: no arm ran")
    per_second = OrderedDict()  # (case, arm) -> [rows of each round]
    runs = []
    with open(os.path.join(out_dir, "pg-move-tps.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "arm", "round", "t", "tps", "pull_mb_s", "wan_mb_s", "elsewhere_blocks"])
        for a in arms:
            rows, run = pg_move_run(a, raw_dir)
            runs.append(run)
            per_second.setdefault((a["case"], a["arm"]), []).append(rows)
            for x in rows:
                w.writerow([a["case"], a["arm"], a["round"], x["t"], x["tps"], f"{x['pull_mb_s']:.3f}",
                            f"{x['wan_mb_s']:.3f}", f"{x['elsewhere_blocks']:.0f}"])
    columns = ["case", "arm", "round", "tps_a", "tps_b_first10", "ratio", "pg_start_s", "lacked_bytes",
               "pull_wan_bytes", "wan_over_lacked", "redundant", "read_iops_during", "read_iops_after",
               "tps_b_open10", "first_tx_s", "settled_s"]
    digits = {"ratio": 3, "wan_over_lacked": 3, "pg_start_s": 2, "first_tx_s": 2, "settled_s": 2,
              "lacked_bytes": 0, "pull_wan_bytes": 0, "redundant": 0, "read_iops_during": 0, "read_iops_after": 0}
    with open(os.path.join(out_dir, "pg-move-runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in runs:
            w.writerow([r[c] if c in ("case", "arm", "round") else
                        ("" if r[c] is None else f"{r[c]:.{digits.get(c, 1)}f}") for c in columns])

    by_arm = OrderedDict()
    for r in runs:
        by_arm.setdefault((r["case"], r["arm"]), []).append(r)
    table = [["case", "arm", "rounds", "tps A", "tps B 10 s", "B/A", "tps B open+10 s", "PG start s", "1st tx s",
              "lacked MB", "WAN/lacked", "settled s", "redundant", "reads during", "reads after"]]
    med = {}
    for (case, arm), rs in by_arm.items():
        m = {k: median_of(rs, k) for k in ("tps_a", "tps_b_first10", "ratio", "tps_b_open10", "pg_start_s",
                                            "first_tx_s", "lacked_bytes", "wan_over_lacked", "settled_s",
                                            "read_iops_during", "read_iops_after")}
        m["redundant"] = max(r["redundant"] for r in rs)
        med[(case, arm)] = m
        table.append([case, ARM_TITLE.get(arm, arm), len(rs), fmt(m["tps_a"]), fmt(m["tps_b_first10"]),
                      fmt(m["ratio"], 2), fmt(m["tps_b_open10"]), fmt(m["pg_start_s"], 1), fmt(m["first_tx_s"], 1),
                      fmt(m["lacked_bytes"] and m["lacked_bytes"] / 1e6), fmt(m["wan_over_lacked"], 3),
                      fmt(m["settled_s"], 1), f"{m['redundant']:.0f}", fmt(m["read_iops_during"], 0),
                      fmt(m["read_iops_after"], 0)])
    print_table(table, right_from=2)
    print("""
Medians over rounds (redundant: the most in any round). MB = 10^6 bytes.
tps A: pgbench at virginia (its own tps); tps B 10 s: transactions ended in the first 10 s of
pgbench's run at taiwan (from its first transaction's start, after its vacuum, as at A) / 10;
B/A: per round, then its median; tps B open+10 s: transactions ended within 10 s of the open at
taiwan (nbdfuse's start) / 10; PG start s: pg_ctl start at taiwan; 1st tx s: from the open to the
first transaction; lacked MB: heliotrope_pull_lacked_blocks x 4096; WAN/lacked: bytes taiwan
received from virginia from the open until heliotrope_pull_elsewhere_blocks read 0, over lacked;
settled s: from the open until it read 0; reads: fio 4 KiB random-read IOPS at QD 8 over a window
made local first, while the pull ran and after it.""")
    if not any(r["has_pull"] for r in runs):
        print("taiwan exported no heliotrope_pull_ metric: this build has no pull, its numbers read as 0")
    notes = sorted({r["note"] for r in runs if r["note"]})
    for n in notes:
        print(n)
    print()

    def goal(text, value, ok, target):
        print(f"{text:<60} {fmt(value, 2) if value is not None else 'not measured':>12}   {target:<12} "
              f"{verdict(ok) if value is not None else 'FAIL'}")

    if ("1", "default") in med:
        ratio = med[("1", "default")]["ratio"]
        goal("case 1, default: tps at B (first 10 s) / tps at A", ratio, ratio is not None and ratio >= 0.8,
             "goal >= 0.8")
        if ratio is not None:
            print(f"{'':60} {'':>12}   moonshot >= 0.95: {'met' if ratio >= 0.95 else 'not met'}")
    heat, block = med.get(("2", "pull-heat")), med.get(("2", "pull-block"))
    if heat and block:
        # No transaction at all in block order's first 10 s: any in hottest first's is infinitely more.
        h, b = heat["tps_b_open10"], block["tps_b_open10"]
        x = h / b if b else (math.inf if h else None)
        goal("case 2: hottest first / block order, tps 10 s from the open", x, x is not None and x >= 1.5,
             "goal >= 1.5")
        if x is None:
            print("  (no transaction ended within 10 s of the open in either arm)")
        h, b = heat["tps_b_first10"], block["tps_b_first10"]
        print(f"{'  the same over the first 10 s of pgbench (not a goal)':<60} "
              f"{fmt(h / b, 2) if b else '-':>12}")
    for arm in ("pull-block", "pull-heat"):
        m = med.get(("2", arm))
        if m:
            goal(f"case 2, {arm}: WAN bytes until none elsewhere / lacked", m["wan_over_lacked"],
                 m["wan_over_lacked"] is not None and m["wan_over_lacked"] <= 1.05, "goal <= 1.05")
    if heat:
        d, a = heat["read_iops_during"], heat["read_iops_after"]
        x = d / a if d is not None and a else None
        goal("case 2, pull-heat: random reads during the pull / after it", x, x is not None and x >= 0.9,
             "goal >= 0.9")
    worst = max(r["redundant"] for r in runs)
    goal("redundant fetches, most in any run", worst, worst == 0, "goal 0")

    # Plot: tps per second from the open at taiwan, median over rounds, per arm; A dashed.
    cases = list(OrderedDict.fromkeys(r["case"] for r in runs))
    data = os.path.join(out_dir, "pg-move.dat")
    index = {}
    with open(data, "w") as f:
        for n, ((case, arm), rounds) in enumerate(per_second.items()):
            index[(case, arm)] = n
            f.write(f"# case {case} {arm}\n")
            for k in range(max(len(rs) for rs in rounds)):
                vals = [rs[k]["tps"] for rs in rounds if k < len(rs)]
                f.write(f"{k + 1} {statistics.median(vals)}\n")
            f.write("\n\n")
    script = [f"set multiplot layout {len(cases)},1"] if len(cases) > 1 else []
    for case in cases:
        plots = [f"'{data}' index {i} using 1:2 with linespoints pt 7 ps 0.6 lw 2 title '{ARM_TITLE.get(arm, arm)}'"
                 for (c, arm), i in index.items() if c == case]
        tps_a = statistics.median(r["tps_a"] for r in runs if r["case"] == case and r["tps_a"] is not None)
        plots.append(f"{tps_a:.2f} with lines dt 2 lw 2 lc rgb 'black' title 'at virginia (A)'")
        top = max([tps_a] + [x["tps"] for (c, _), rounds in per_second.items() if c == case
                             for rs in rounds for x in rs])
        script.append(f"set title 'PostgreSQL moved virginia -> taiwan, {CASE_TITLE.get(case, case)}: "
                      f"tps per second from the open at taiwan (median of rounds)'\n"
                      "set xlabel 'seconds since the open at taiwan (t0)'\nset ylabel 'tps'\n"
                      f"set yrange [0:{1.15 * top:.0f}]\nplot {', '.join(plots)}")
    if len(cases) > 1:
        script.append("unset multiplot")
    gnuplot("\n".join(script) + "\n", os.path.join(out_dir, "pg-move.png"), size=(1000, 480 * len(cases)))


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
    elif args[:1] == ["pg-move"] and len(args) == 4:
        pg_move(*args[1:])
    else:
        sys.exit(__doc__)
