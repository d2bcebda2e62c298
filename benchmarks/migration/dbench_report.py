#!/usr/bin/env python3
"""The report of dbench.sh (standard library; gnuplot for the PNGs).

  dbench_report.py OUT MIGRATE_AFTER

Reads OUT/dbench-runs.csv (dbench.sh's) and each run's raw/ARM-rN.console.csv and .samples.csv
(dbench_watch.py); writes OUT/dbench-seconds.csv (per run and second of dbench: its
throughput, the guest's requests waiting on the WAN by cause, the storage bytes each way),
OUT/dbench-arms.csv (per arm: medians with min and max), dbench-timeline.png (Fig. 12),
dbench-bars.png (Fig. 13) and prints the summary with the issue's checks.

dbench 4 prints, once a second, the throughput since its phase (warmup, execute) began:
a second's own throughput is the difference of two such running totals. Times are seconds
since dbench started (the guest's clock, which TCG keeps with the host's but for the
guest's pause at the switchover).
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

BENCHMARKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path[:0] = [os.path.join(BENCHMARKS, "geo"), os.path.join(BENCHMARKS, "dbench-guest")]
from console import Line, interval_rates, parse_progress  # noqa: E402
from geo_report import fmt, gnuplot, print_table, read_csv, verdict  # noqa: E402

PAPER_ARMS = ("remote", "sync", "on-demand", "proactive")
ARMS = PAPER_ARMS + ("shipped", "nbdkit")
CAUSES = ("fetch", "sync", "remote")
AFTER_SWITCHOVER = 30
MB = 1e6


def seconds_of(console_csv):
    """[(second, MB/s)] of one run: each second's own throughput (console.py's interval rates), on
    one axis: the execute phase counts its seconds from 1 again after the warmup's."""
    lines = [Line(float(r["t"]), float(r["t"]), r["line"]) for r in read_csv(console_csv)]
    rates = interval_rates(parse_progress(lines))
    warmup = max((r.seconds for r in rates if r.phase == "warmup"), default=0)
    return [(r.seconds + (warmup if r.phase == "execute" else 0), r.mb_per_sec) for r in rates]


def waits_of(samples_csv, t0):
    """{second: {cause: request-seconds waited in it}} over both sites, and {second: bytes} sent by virginia and by taiwan."""
    by_site = defaultdict(list)
    if os.path.exists(samples_csv):
        for row in read_csv(samples_csv):
            by_site[row["site"]].append(row)
    waits, sent = defaultdict(lambda: defaultdict(float)), defaultdict(lambda: defaultdict(float))
    for site, rows in by_site.items():
        for a, b in zip(rows, rows[1:]):
            second = int(float(b["t"]) - t0)
            for c in CAUSES:
                waits[second][c] += float(b[f"wait_{c}_s"]) - float(a[f"wait_{c}_s"])
            sent[second][site] += float(b["peer_sent_bytes"]) - float(a["peer_sent_bytes"])
    return waits, sent


def virginia_counters(samples_csv):
    """[(t, peer_sent_bytes, peer_received_bytes)] of virginia's samples, in time order."""
    if not os.path.exists(samples_csv):
        return []
    return [(float(r["t"]), float(r["peer_sent_bytes"]), float(r["peer_received_bytes"]))
            for r in read_csv(samples_csv) if r["site"] == "virginia"]


def counters_at(samples, t):
    """virginia's (sent, received) peer bytes at host time t, linear between the two samples around it."""
    later = next((i for i, s in enumerate(samples) if s[0] > t), len(samples))
    if later in (0, len(samples)):
        _, sent, received = samples[min(later, len(samples) - 1)]
        return sent, received
    (t0, s0, r0), (t1, s1, r1) = samples[later - 1], samples[later]
    f = (t - t0) / (t1 - t0)
    return s0 + (s1 - s0) * f, r0 + (r1 - r0) * f


def storage_bytes(run, samples):
    """(forward, backward): virginia's peer bytes sent to and received from taiwan from dbench's start to its end.
    dbench.sh reads the counters at t_counted and after dbench is done; runs made before t_counted was recorded
    read them at t_migrate, 10 s into dbench (review #24, A1): the samples' increase from t_start to t_counted
    makes up the difference. The nbdkit arm counts its links' bytes and has no samples."""
    forward, backward = int(run["storage_forward_bytes"]), int(run["storage_backward_bytes"])
    t_start, t_counted = float(run["t_start"]), float(run.get("t_counted") or run["t_migrate"])
    if samples and t_counted > t_start:
        (s0, r0), (s1, r1) = counters_at(samples, t_start), counters_at(samples, t_counted)
        forward, backward = forward + round(s1 - s0), backward + round(r1 - r0)
    return forward, backward


def median_span(values):
    values = [v for v in values if v is not None]
    if not values:
        return None, None, None
    return statistics.median(values), min(values), max(values)


def analyse(out_dir):
    runs = read_csv(os.path.join(out_dir, "dbench-runs.csv"))
    per_second, results = [], []
    for r in runs:
        tag = f"{r['arm']}-r{r['run']}"
        t0 = float(r["t_start"])
        secs = seconds_of(os.path.join(out_dir, "raw", f"{tag}.console.csv"))
        samples_csv = os.path.join(out_dir, "raw", f"{tag}.samples.csv")
        waits, sent = waits_of(samples_csv, t0)
        forward, backward = storage_bytes(r, virginia_counters(samples_csv))
        moved = float(r["t_migrated"]) - t0
        for second, rate in secs:
            # dbench's line for second N covers (N-1, N]; waits_of keys a sample interval ending in [N-1, N) N-1.
            w = waits.get(second - 1, {})
            per_second.append({"arm": r["arm"], "run": r["run"], "second": second, "mb_s": f"{rate:.2f}",
                               **{f"wan_wait_{c}": f"{w.get(c, 0.0):.3f}" for c in CAUSES},
                               "virginia_sent_bytes": f"{sent.get(second - 1, {}).get('virginia', 0):.0f}",
                               "taiwan_sent_bytes": f"{sent.get(second - 1, {}).get('taiwan', 0):.0f}"})
        work = sum(rate for _, rate in secs)  # MB: each second's throughput over one second
        after = [rate for second, rate in secs if second > moved]
        window = [s for s in waits if moved <= s < moved + AFTER_SWITCHOVER]
        results.append({
            "arm": r["arm"], "run": r["run"], "seconds": len(secs),
            "mean_mb_s": statistics.mean(rate for _, rate in secs) if secs else None,
            "dbench_mb_s": float(r["dbench_mb_s"]) if r["dbench_mb_s"] else None,
            "after_mb_s": statistics.mean(after) if after else None,
            "wait_after_s": sum(sum(waits[s].values()) for s in window) if r["arm"] != "nbdkit" else None,
            "work_mb": work,
            "storage_forward_mb": forward / MB, "storage_backward_mb": backward / MB,
            "ram_mb": int(r["ram_bytes"]) / MB,
            "storage_per_work": (forward + backward) / MB / work if work else None,
            "downtime_ms": float(r["guest_downtime_ms"]), "migration_ms": float(r["migration_total_ms"]),
            "moved_s": moved,
        })
    return per_second, results


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


KEYS = ("mean_mb_s", "dbench_mb_s", "after_mb_s", "wait_after_s", "storage_forward_mb", "storage_backward_mb", "ram_mb",
        "storage_per_work", "downtime_ms", "migration_ms")


def by_arm(results):
    arms = {}
    for arm in ARMS:
        runs = [r for r in results if r["arm"] == arm]
        if runs:
            arms[arm] = {k: median_span([r[k] for r in runs]) for k in KEYS} | {"runs": len(runs)}
    return arms


def span(t, digits=1):
    m, lo, hi = t
    return "-" if m is None else f"{m:.{digits}f} [{lo:.{digits}f}-{hi:.{digits}f}]"


def plots(out_dir, per_second, results, arms, migrate_after):
    # Fig. 12: one panel per arm, its median run (by mean throughput): each second, and a 5 s moving average.
    panels = []
    for arm in arms:
        runs = sorted((r for r in results if r["arm"] == arm), key=lambda r: r["mean_mb_s"] or 0)
        run = runs[len(runs) // 2]
        path = os.path.join(out_dir, "raw", f"timeline-{arm}.dat")
        rates = [(row["second"], float(row["mb_s"])) for row in per_second if row["arm"] == arm and row["run"] == run["run"]]
        with open(path, "w") as f:
            for i, (second, rate) in enumerate(rates):
                window = [r for _, r in rates[max(0, i - 2):i + 3]]
                f.write(f"{second} {rate:.2f} {statistics.mean(window):.2f}\n")
        panels.append(f"set title '{arm} (run {run['run']}; moved by {run['moved_s']:.0f} s)'\n"
                      f"set arrow 1 from {migrate_after},graph 0 to {migrate_after},graph 1 nohead dt 2\n"
                      f"set arrow 2 from {run['moved_s']:.1f},graph 0 to {run['moved_s']:.1f},graph 1 nohead dt 3\n"
                      f"plot '{path}' using 1:2 with lines lc rgb '#b0b0b0' title 'each second', "
                      f"'' using 1:3 with lines lw 2 lc rgb '#3060c0' title '5 s average'\n")
    columns = 3 if len(panels) > 4 else len(panels)
    gnuplot(f"set multiplot layout {(len(panels) + columns - 1) // columns},{columns} title "
            f"'dbench throughput per second; the migration from {migrate_after:.0f} s (dashed) to the switchover (dotted)'\n"
            "set xlabel 's since dbench started'\nset ylabel 'MB/s'\nset yrange [0:*]\nset key top right\n"
            + "".join(panels) + "unset multiplot\n", os.path.join(out_dir, "dbench-timeline.png"), size=(1500, 800))
    # Fig. 13: mean throughput with min and max; WAN MB, storage each way and RAM.
    data = os.path.join(out_dir, "raw", "bars.dat")
    with open(data, "w") as f:
        for arm, a in arms.items():
            m, lo, hi = a["mean_mb_s"]
            f.write(f"{arm} {m:.2f} {lo:.2f} {hi:.2f} {a['storage_forward_mb'][0]:.1f} {a['storage_backward_mb'][0]:.1f} {a['ram_mb'][0]:.1f}\n")
    gnuplot("set multiplot layout 1,2\nset style fill solid 0.6 border -1\nset boxwidth 0.6\nset xtics rotate by -30\n"
            f"set xrange [-0.5:{len(arms) - 0.5}]\n"
            "set title '(a) mean dbench throughput (median, min-max)'\nset ylabel 'MB/s'\nset yrange [0:*]\n"
            f"plot '{data}' using 0:2:xtic(1) with boxes notitle, '' using 0:2:3:4 with yerrorbars lc black pt 0 notitle\n"
            "set title '(b) WAN traffic during the run (median)'\nset ylabel 'MB'\nset style histogram rowstacked\n"
            "set style data histograms\n"
            f"plot '{data}' using 5:xtic(1) title 'storage v->t', '' using 6 title 'storage t->v', '' using 7 title 'RAM'\n"
            "unset multiplot\n", os.path.join(out_dir, "dbench-bars.png"), size=(1200, 520))


def checks(arms):
    def get(arm, key):
        return arms.get(arm, {}).get(key, (None,))[0]

    lines = []

    def check(text, ok):
        lines.append(f"  {verdict(ok) if ok is not None else 'n/a '}  {text}")

    paper = {a: get(a, "mean_mb_s") for a in PAPER_ARMS if get(a, "mean_mb_s") is not None}
    if len(paper) == len(PAPER_ARMS):
        best = max(paper, key=paper.get)
        check(f"proactive has the highest mean throughput of the paper's four arms (highest: {best}, {paper[best]:.1f} MB/s)",
              best == "proactive")
    pro, syn = get("proactive", "storage_per_work"), get("sync", "storage_per_work")
    check(f"proactive sends fewer storage WAN bytes per MB of dbench work than sync ({fmt(pro, 3)} vs {fmt(syn, 3)})",
          None if pro is None or syn is None else pro < syn)
    pw, ow = get("proactive", "wait_after_s"), get("on-demand", "wait_after_s")
    check(f"proactive's guest waits less on the WAN in the {AFTER_SWITCHOVER} s after the switchover than on-demand's "
          f"({fmt(pw, 2)} vs {fmt(ow, 2)} request-seconds)", None if pw is None or ow is None else pw < ow)
    sh, pr = get("shipped", "mean_mb_s"), get("proactive", "mean_mb_s")
    check(f"Heliotrope as shipped is at least as fast as proactive ({fmt(sh)} vs {fmt(pr)} MB/s)",
          None if sh is None or pr is None else sh >= pr)
    nk = get("nbdkit", "after_mb_s")
    others = {a: get(a, "after_mb_s") for a in ("sync", "on-demand", "proactive")}
    check("the disk left behind on nbdkit is slower after the move than sync, on-demand and proactive ("
          + ", ".join(f"{a} {fmt(v)}" for a, v in [("nbdkit", nk)] + list(others.items())) + " MB/s)",
          None if nk is None or None in others.values() else all(nk < v for v in others.values()))
    return lines


def main():
    out_dir, migrate_after = sys.argv[1], float(sys.argv[2])
    per_second, results = analyse(out_dir)
    if not per_second:
        sys.exit("dbench_report.py: no dbench progress lines in any run's console")
    write_csv(os.path.join(out_dir, "dbench-seconds.csv"), per_second)
    arms = by_arm(results)
    write_csv(os.path.join(out_dir, "dbench-arms.csv"),
              [{"arm": arm, "runs": a["runs"], **{f"{k}_{s}": "" if a[k][0] is None else f"{a[k][i]:.3f}"
                                                     for k in KEYS for i, s in enumerate(("median", "min", "max"))}}
               for arm, a in arms.items()])
    print("Per arm, median [min-max] over its runs. mean: each second's dbench throughput, averaged over the run")
    print("(warmup included); after: from the switchover's end on; wait 30 s: request-seconds the guest's I/O waited")
    print("on the WAN (fetches, sync copies, remote calls) in the 30 s after it; storage MB each way and RAM MB crossed")
    print("the WAN during the run; st/MB: storage bytes per byte of dbench work.")
    print()
    rows = [["arm", "runs", "mean MB/s", "dbench MB/s", "after MB/s", "wait 30 s", "storage v->t MB", "storage t->v MB",
             "RAM MB", "st/MB", "downtime ms"]]
    for arm, a in arms.items():
        rows.append([arm, a["runs"], span(a["mean_mb_s"]), span(a["dbench_mb_s"]), span(a["after_mb_s"]), span(a["wait_after_s"], 2),
                     span(a["storage_forward_mb"]), span(a["storage_backward_mb"]), span(a["ram_mb"]), span(a["storage_per_work"], 3),
                     span(a["downtime_ms"], 0)])
    print_table(rows)
    print()
    print("Checks (issue #24, on the medians):")
    print("\n".join(checks(arms)))
    plots(out_dir, per_second, results, arms, migrate_after)


if __name__ == "__main__":
    main()
