#!/usr/bin/env python3
"""Tables and the plot of benchmarks/cassandra/move.sh (standard library; gnuplot for the PNG).

  report.py OUT WAY...
      reads OUT/WAY/{client-*.csv,events.csv,cpu.csv,wan.csv,tokens-*.csv,streams.csv,peer-*.txt},
      writes OUT/throughput.csv and OUT/move.png, prints the summary and the issue's goals
"""
import os
import statistics
import sys
from bisect import bisect_right

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "geo"))
from geo_report import fmt, gnuplot, print_table, read_csv, verdict  # noqa: E402

REGIONS = ("virginia", "taiwan")
WARMUP_S = 10  # the first seconds of load (connections, JIT) do not count in the steady throughput


def events(d):
    return [(float(r["unix_s"]), r["event"]) for r in read_csv(os.path.join(d, "events.csv"))]


def event_time(evs, name):
    return next(t for t, e in evs if e == name)


def inspect_seconds(evs, t_start, t_end):
    """Seconds of the move that went to the benchmark's own inspect (a driver JVM reading the
    cluster's state), between events "inspect" and "inspect done". events.csv files written
    before those events existed (results/2026-11-28): Heliotrope's way ran an inspect, and
    nothing else, from the event before each "drain" up to it (lib.sh's move_heliotrope)."""
    during = [(t, e) for t, e in evs if t_start <= t <= t_end]
    if any(e == "inspect" for _, e in evs):
        starts = [t for t, e in during if e == "inspect"]
        ends = [t for t, e in during if e == "inspect done"]
        return sum(b - a for a, b in zip(starts, ends))
    return sum(t - during[i - 1][0] for i, (t, e) in enumerate(during) if i > 0 and e.startswith("drain "))


def peer_bytes(d, name):
    """Heliotrope's peer bytes, both directions, at point NAME (peer-NAME.txt), or None."""
    path = os.path.join(d, f"peer-{name}.txt")
    return sum(map(int, open(path).read().split())) if os.path.exists(path) else None


def per_second(d):
    """{unix_s: {region: (ops, errors)}} over the seconds both clients reported."""
    by_region = {}
    for region in REGIONS:
        by_region[region] = {int(r["unix_s"]): (int(r["reads"]) + int(r["writes"]), int(r["errors"]))
                             for r in read_csv(os.path.join(d, f"client-{region}.csv"))}
    seconds = sorted(set.intersection(*(set(v) for v in by_region.values())))
    return {s: {region: by_region[region][s] for region in REGIONS} for s in seconds}


def link_bytes_at(samples, t):
    """Sum over links of forward + backward bytes at the last sample at or before t: {kind: bytes}."""
    out = {}
    for (kind, _link), series in samples.items():
        times = [s[0] for s in series]
        i = bisect_right(times, t * 1000) - 1
        out[kind] = out.get(kind, 0) + (series[i][1] if i >= 0 else 0)
    return out


def wan_samples(d):
    samples = {}
    for r in read_csv(os.path.join(d, "wan.csv")):
        kind = r["link"].rsplit("-", 1)[1]
        samples.setdefault((kind, r["link"]), []).append((int(r["unix_ms"]), int(r["forward_bytes"]) + int(r["backward_bytes"])))
    return samples


def streamed(d, t_start):
    """Bytes the nodes received by streaming during the move: per node incarnation (host id,
    address) its last count less its count before the move (the cluster's own formation streams)."""
    last, before = {}, {}
    path = os.path.join(d, "streams.csv")
    if os.path.exists(path):
        for line in open(path):
            t, host, address, _dc, received, _sent = line.strip().split(",")
            last[(host, address)] = int(received)
            if float(t) < t_start:
                before[(host, address)] = int(received)
    return sum(v - before.get(k, 0) for k, v in last.items())


def read_lines(path):
    return open(path).read().split() if os.path.exists(path) else None


def analyse(out, way):
    d = os.path.join(out, way)
    evs = events(d)
    t_steady, t_start, t_end = event_time(evs, "steady"), event_time(evs, "move-start"), event_time(evs, "move-end")
    secs = per_second(d)
    total = {s: sum(v[0] for v in secs[s].values()) for s in secs}
    window = [total[s] for s in secs if t_steady + WARMUP_S <= s < t_start]
    if not window:
        sys.exit(f"report.py: {way}: no second of load between {WARMUP_S} s after the steady event and the move "
                 "(--steady must be longer than that)")
    steady = statistics.median(window)
    after = [s for s in secs if s >= t_start]
    below = sum(1 for s in after if total[s] < 0.5 * steady)
    cpu = [(int(r["unix_s"]), int(r["busy_percent"])) for r in read_csv(os.path.join(d, "cpu.csv"))]
    cpu_steady = [c for s, c in cpu if t_steady + WARMUP_S <= s < t_start]
    wan = wan_samples(d)
    before_b, after_b = link_bytes_at(wan, t_start), link_bytes_at(wan, t_end)
    p0, p1, p2 = (peer_bytes(d, name) for name in ("before", "after", "end"))
    inspect_s = inspect_seconds(evs, t_start, t_end)
    tokens_before, tokens_after = read_lines(os.path.join(d, "tokens-before.csv")), read_lines(os.path.join(d, "tokens-after.csv"))
    rows = []
    for s in sorted(secs):
        for region in REGIONS:
            rows.append((way, f"{s - t_start:.3f}", region, *secs[s][region]))
    return {
        "way": way, "rows": rows,
        "move_s": t_end - t_start - inspect_s, "inspect_s": inspect_s, "move_end_s": t_end - t_start,
        "steady": steady, "below_s": below,
        "regions_steady": {r: statistics.median([secs[s][r][0] for s in secs if t_steady + WARMUP_S <= s < t_start] or [0])
                           for r in REGIONS},
        "regions_after": {r: statistics.median([secs[s][r][0] for s in secs if s > t_end + WARMUP_S] or [0]) for r in REGIONS},
        "errors": sum(v[1] for s in after for v in secs[s].values()),
        "storage_wan": after_b.get("storage", 0) - before_b.get("storage", 0),
        "client_wan": after_b.get("native", 0) - before_b.get("native", 0),
        "peer": None if p0 is None else p1 - p0, "peer_end": None if p0 is None or p2 is None else p2 - p0,
        "streamed": streamed(d, t_start),
        "tokens_same": tokens_before is not None and tokens_before == tokens_after,
        "cpu_mean": statistics.mean(cpu_steady) if cpu_steady else None,
        "cpu_max": max(cpu_steady) if cpu_steady else None,
        "steps": [(t - t_start, e) for t, e in evs if t_start <= t <= t_end],
    }


def mb(b):
    return "-" if b is None else f"{b / 1e6:.1f}"


def plot(results, png):
    data = os.path.splitext(png)[0] + ".dat"
    with open(data, "w") as f:
        for r in results:
            for region in REGIONS:
                for _way, t, reg, ops, _err in r["rows"]:
                    if reg == region:
                        f.write(f"{t} {ops}\n")
                f.write("\n\n")
    plots, blocks, script = [], 0, f"set multiplot layout {len(results)},1\n"
    for r in results:
        label = "Heliotrope (cold move)" if r["way"] == "heliotrope" else "application level (add 3 at taiwan, decommission 3 at virginia)"
        script += (f"set title '{label}'\nset xlabel 'seconds since the move started'\nset ylabel 'requests/s'\n"
                   f"unset arrow\nset arrow from 0, graph 0 to 0, graph 1 nohead dt 2\n"
                   f"set arrow from {r['move_end_s']:.0f}, graph 0 to {r['move_end_s']:.0f}, graph 1 nohead dt 2\n")
        plots = [f"'{data}' index {blocks + i} with lines lw 1.5 title '{region} client'" for i, region in enumerate(REGIONS)]
        script += "plot " + ", ".join(plots) + "\n"
        blocks += len(REGIONS)
    gnuplot(script + "unset multiplot\n", png, size=(1000, 380 * len(results)))


def main(out, ways):
    results = [analyse(out, w) for w in ways]
    with open(os.path.join(out, "throughput.csv"), "w") as f:
        f.write("way,t_s,region,ops_per_s,errors\n")
        for r in results:
            for row in r["rows"]:
                f.write(",".join(str(x) for x in row) + "\n")
    plot(results, os.path.join(out, "move.png"))
    table = [("way", "steady ops/s", "virginia/taiwan before", "after", "move s", "inspect s", "below 50% s", "errors",
              "storage WAN MB", "helio MB", "helio to end MB", "client WAN MB", "streamed MB", "tokens same", "CPU % (max)")]
    for r in results:
        table.append((r["way"], fmt(r["steady"], 0),
                      "/".join(fmt(r["regions_steady"][g], 0) for g in REGIONS),
                      "/".join(fmt(r["regions_after"][g], 0) for g in REGIONS),
                      fmt(r["move_s"], 0), fmt(r["inspect_s"], 0), str(r["below_s"]), str(r["errors"]),
                      mb(r["storage_wan"]), mb(r["peer"]), mb(r["peer_end"]),
                      mb(r["client_wan"]), mb(r["streamed"]), "yes" if r["tokens_same"] else "no",
                      f"{fmt(r['cpu_mean'], 0)} ({fmt(r['cpu_max'], 0)})"))
    print_table(table)
    print("\nmove: from the move's start to its end less the benchmark's own inspect (a driver JVM reading the cluster's state)")
    print("in between; storage WAN: bytes through the nodes' storage-port links during the move (streaming, gossip, requests")
    print("forwarded between coordinators and replicas); helio: Heliotrope's bytes between the sites during the move, and")
    print("from its start to the end of the run (the pull carries on after the move); streamed: bytes_received of")
    print("system_views.streaming during the move, over every node incarnation the inspects saw (what nodetool netstats shows):")
    print("for the application's way a lower bound, since the virginia nodes are gone by the final inspect;")
    print("below 50%: seconds from the move's start on with both regions' requests/s under half the steady median;")
    print(f"CPU: host busy % over the steady window (after its first {WARMUP_S} s), mean (max)")
    for r in results:
        print(f"\n{r['way']} steps (s since the move started): " + "; ".join(f"{t:.0f} {e}" for t, e in r["steps"]))
    by = {r["way"]: r for r in results}
    print()
    for r in results:
        if r["cpu_mean"] is not None and r["cpu_mean"] >= 70:
            print(f"warning: {r['way']}: host CPU {r['cpu_mean']:.0f}% at steady state (goal < 70%): raise --think-ms")
    if "heliotrope" in by:
        h = by["heliotrope"]
        print(f"goal: Heliotrope streams 0 bytes between nodes: {h['streamed']} -> {verdict(h['streamed'] == 0)}")
        print(f"goal: token -> host-id map identical before and after: {verdict(h['tokens_same'])}")
    if "heliotrope" in by and "app" in by:
        h, a = by["heliotrope"], by["app"]
        if h["below_s"] == a["below_s"] == 0:
            outcome = "not separated (neither way fell below 50%)"
        else:
            outcome = verdict(h["below_s"] * 5 <= a["below_s"])
        print(f"goal: Heliotrope's time below 50% at most a fifth of the application's: {h['below_s']} s vs {a['below_s']} s "
              f"-> {outcome}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
