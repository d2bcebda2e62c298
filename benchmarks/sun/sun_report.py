#!/usr/bin/env python3
"""Tables and plots of follow.sh (standard library; gnuplot through the geo benchmarks' helpers).

  sun_report.py OUT DAY_MS PLACEMENT...
      reads OUT/<placement>/{latency,timeline,moves,wan}.csv; writes OUT/summary.csv,
      OUT/latency-cdf.png (Fig. 7), OUT/timeline.png (Fig. 6) and prints the summary
"""
import csv
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "geo"))
from geo_report import fmt, gnuplot, print_table, read_csv, verdict  # noqa: E402

REGIONS = ("virginia", "taiwan")


def percentile(sorted_values, q):
    if not sorted_values:
        return None
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def stats(latencies_ms):
    values = sorted(latencies_ms)
    return {"n": len(values), "mean": statistics.fmean(values) if values else None,
            "p50": percentile(values, 0.5), "p90": percentile(values, 0.9), "p99": percentile(values, 0.99)}


def cdf_file(path, values, points=300):
    values = sorted(values)
    with open(path, "w") as f:
        if not values:
            f.write("0 0\n")
            return
        step = max(1, len(values) // points)
        for i in range(0, len(values), step):
            f.write(f"{values[i]:.3f} {(i + 1) / len(values):.4f}\n")
        f.write(f"{values[-1]:.3f} 1\n")


def main(out, day_ms, placements):
    rows = [["placement", "region", "requests", "mean ms", "p50 ms", "p90 ms", "p99 ms", "reads mean", "writes mean", "retried"]]
    csv_rows = []
    means = {}
    failed = {}
    migrations = {}
    moved = {}
    plot_dir = os.path.join(out, "plot")
    os.makedirs(plot_dir, exist_ok=True)
    for p in placements:
        by = defaultdict(list)
        retried = defaultdict(int)
        failed[p] = 0
        for r in read_csv(os.path.join(out, p, "latency.csv")):
            if r["outcome"] != "ok":
                failed[p] += 1
                continue
            ms = int(r["latency_us"]) / 1000
            by[(r["region"], r["op"])].append(ms)
            by[(r["region"], "all")].append(ms)
            by[("all", "all")].append(ms)
            if int(r["attempts"]) > 1:
                retried[r["region"]] += 1
        for region in REGIONS + ("all",):
            s = stats(by[(region, "all")])
            reads = stats(by[(region, "read")]) if region != "all" else {"mean": None}
            writes = stats(by[(region, "write")]) if region != "all" else {"mean": None}
            rows.append([p, region, s["n"], fmt(s["mean"]), fmt(s["p50"]), fmt(s["p90"]), fmt(s["p99"]), fmt(reads["mean"]),
                         fmt(writes["mean"]), retried[region] if region != "all" else sum(retried.values())])
            csv_rows.append({"placement": p, "region": region, "requests": s["n"], "mean_ms": s["mean"], "p50_ms": s["p50"],
                             "p90_ms": s["p90"], "p99_ms": s["p99"], "read_mean_ms": reads["mean"], "write_mean_ms": writes["mean"]})
        means[p] = stats(by[("all", "all")])["mean"]
        for region in REGIONS:
            for op in ("read", "write"):
                cdf_file(os.path.join(plot_dir, f"cdf-{p}-{region}-{op}.dat"), by[(region, op)])
        migrations[p] = len(read_csv(os.path.join(out, p, "moves.csv")))
        decisions = os.path.join(out, p, "decisions.csv")
        moved[p] = sum(1 for d in read_csv(decisions) if d["outcome"] == "move") if os.path.exists(decisions) else 0
        if failed[p]:
            print(f"{p}: {failed[p]} requests failed: not in the latencies, and the goal fails")
    print_table(rows, right_from=2)
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(csv_rows[0].keys()))
        writer.writeheader()
        writer.writerows(csv_rows)
    print()
    wan_rows = [["placement", "migrations", "decisions to move", "client B fwd/back", "quorum B fwd/back", "election B fwd/back"]]
    for p in placements:
        wan = {r["port"]: f'{r["forward_bytes"]}/{r["backward_bytes"]}' for r in read_csv(os.path.join(out, p, "wan.csv"))}
        wan_rows.append([p, migrations[p], moved[p], wan.get("client", "-"), wan.get("quorum", "-"), wan.get("election", "-")])
    print_table(wan_rows)
    if "scheduler" in means and all(k in means for k in ("virginia", "spread")):
        ok = means["scheduler"] is not None and all(means[k] is not None and means["scheduler"] < means[k] for k in ("virginia", "spread"))
        ok = ok and not any(failed.values())
        print(f"\ngoal: the scheduler's mean latency ({fmt(means['scheduler'])} ms) is below both static placements'"
              f" (virginia {fmt(means['virginia'])} ms, spread {fmt(means['spread'])} ms), with {migrations['scheduler']} migrations"
              f" in {moved['scheduler']} decisions, no request failed ({sum(failed.values())} did): {verdict(ok)}")
    plot_cdf(out, plot_dir, placements)
    plot_timeline(out, plot_dir, placements, day_ms)


def plot_cdf(out, plot_dir, placements):
    script = [f"set multiplot layout 1,{len(placements)}", "set logscale x", "set xrange [0.5:*]", "set yrange [0:1]",
              "set xlabel 'latency (ms)'", "set ylabel 'CDF'"]
    for p in placements:
        script.append(f"set title '{p}'")
        curves = []
        for region, color in zip(REGIONS, ("#1f77b4", "#d62728")):
            for op, dash in (("read", 1), ("write", 2)):
                curves.append(f"'{plot_dir}/cdf-{p}-{region}-{op}.dat' using 1:2 with lines lw 2 dt {dash} lc rgb '{color}' title '{region} {op}s'")
        script.append("plot " + ", \\\n  ".join(curves))
    script.append("unset multiplot")
    gnuplot("\n".join(script) + "\n", os.path.join(out, "latency-cdf.png"), size=(420 * len(placements), 420))


def plot_timeline(out, plot_dir, placements, day_ms):
    """Top: each region's offered rate and the answers per second of each placement; below, per
    placement, how many servers run in taiwan, with the end of each move dashed (Fig. 6)."""
    hours_per_s = 24 * 1000 / day_ms
    per_second = defaultdict(lambda: defaultdict(int))
    for p in placements:
        for r in read_csv(os.path.join(out, p, "latency.csv")):
            if r["outcome"] == "ok":
                per_second[(p, r["region"])][int(r["t_ms"]) // 1000] += 1
        with open(os.path.join(plot_dir, f"answers-{p}.dat"), "w") as f:
            last = max([max(per_second[(p, region)], default=0) for region in REGIONS])
            for second in range(last + 1):
                f.write(f"{second * hours_per_s:.3f} " + " ".join(str(per_second[(p, region)][second]) for region in REGIONS) + "\n")
        with open(os.path.join(plot_dir, f"sites-{p}.dat"), "w") as f:
            for r in read_csv(os.path.join(out, p, "timeline.csv")):
                f.write(f'{r["hour"]} {r["sites"].split("|").count("taiwan")} {r["rate_virginia"]} {r["rate_taiwan"]}\n')
    first = placements[0]
    script = [f"set multiplot layout {1 + len(placements)},1", "set xlabel 'hour of the trace (virginia time)'", "set xtics 6",
              "set ylabel 'requests/s'", "set title 'offered load (lines) and answered requests per second (points)'"]
    curves = [f"'{plot_dir}/sites-{first}.dat' using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'virginia offered'",
              f"'{plot_dir}/sites-{first}.dat' using 1:4 with lines lw 2 lc rgb '#d62728' title 'taiwan offered'"]
    for p, pt in zip(placements, (7, 5, 9)):
        curves.append(f"'{plot_dir}/answers-{p}.dat' using 1:2 with points pt {pt} ps 0.3 lc rgb '#1f77b4' title 'virginia, {p}'")
        curves.append(f"'{plot_dir}/answers-{p}.dat' using 1:3 with points pt {pt} ps 0.3 lc rgb '#d62728' title 'taiwan, {p}'")
    script.append("plot " + ", \\\n  ".join(curves))
    script += ["set ylabel 'servers in taiwan'", "set yrange [-0.2:3.2]", "set ytics 1"]
    for p in placements:
        script.append(f"set title '{p}'")
        arrows = []
        moves = os.path.join(out, p, "moves.csv")
        for m in (read_csv(moves) if os.path.exists(moves) else []):
            h = float(m["end_s"]) * hours_per_s
            arrows.append(f"set arrow from {h:.3f},-0.2 to {h:.3f},3.2 nohead dt 2 lc rgb 'gray'")
        script += arrows
        script.append(f"plot '{plot_dir}/sites-{p}.dat' using 1:2 with steps lw 2 lc rgb 'black' notitle")
        script.append("unset arrow")
    script.append("unset multiplot")
    gnuplot("\n".join(script) + "\n", os.path.join(out, "timeline.png"), size=(1000, 300 + 180 * len(placements)))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        print(__doc__)
        sys.exit(1)
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
