#!/usr/bin/python3
"""One propagation run, for propagation.sh (needs libnbd's Python binding: Debian's
python3-libnbd, so run it with /usr/bin/python3).

  propagate.py --uri nbd://127.0.0.1:10809/IMG --file FILE \\
      --source-metrics URL --dest-metrics URL --dest SITE --source SITE \\
      --csv OUT.csv --run N --kind KIND --cap BYTES_PER_S [--interval 0.1] [--timeout 600]

Holds one NBD connection to the image open (it writes the file's first 4 KiB through it,
so the image is open for write here and its lease taken before the bulk write starts),
writes the whole file with nbdcopy (its default connections), keeps the connection open
until the queue has drained, then closes it. Meanwhile it samples, every --interval
seconds, the source site's heliotrope_propagation_pushed_bytes_total{destination=DEST}
and heliotrope_propagation_queue, and the destination's
heliotrope_peer_bytes_total{direction="received",peer=SOURCE}, and appends them to --csv
(run,kind,cap_bytes_per_s,t,phase,pushed_bytes,received_bytes,queue,t_lo,t_hi,t_rx_lo,
t_rx_hi): times in seconds (monotonic clock); the source was scraped between t_lo and t_hi
(t is their middle), the destination between t_rx_lo and t_rx_hi; phase is one of before,
writing, draining, closed. Drained: the write finished, the queue reads 0 and the pushed bytes have not
grown for --settle seconds.
"""
import argparse
import csv
import subprocess
import sys
import threading
import time

import nbd

from prom import scrape, value


class Sampler(threading.Thread):
    def __init__(self, args):
        super().__init__(name="sampler", daemon=True)
        self.args = args
        self.rows = []
        self.phase = "before"
        self.stop = threading.Event()
        self.error = None

    def sample(self):
        a = self.args
        t0 = time.monotonic()
        src = scrape(a.source_metrics)
        t1 = time.monotonic()
        dst = scrape(a.dest_metrics)
        t2 = time.monotonic()
        row = {"t": (t0 + t1) / 2, "t_lo": t0, "t_hi": t1, "t_rx_lo": t1, "t_rx_hi": t2,
               "phase": self.phase,
               "pushed": value(src, "heliotrope_propagation_pushed_bytes_total", f'destination="{a.dest}"'),
               "received": value(dst, "heliotrope_peer_bytes_total", 'direction="received"', f'peer="{a.source}"'),
               "queue": value(src, "heliotrope_propagation_queue")}
        self.rows.append(row)
        return row

    def run(self):
        try:
            next_at = time.monotonic()
            while not self.stop.is_set():
                self.sample()
                next_at += self.args.interval
                self.stop.wait(max(0.0, next_at - time.monotonic()))
        except Exception as e:  # reported by the main thread
            self.error = e

    def last(self):
        return self.rows[-1] if self.rows else None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for opt in ("--uri", "--file", "--source-metrics", "--dest-metrics", "--csv", "--kind"):
        p.add_argument(opt, required=True)
    p.add_argument("--source", default="virginia")
    p.add_argument("--dest", default="taiwan")
    p.add_argument("--run", type=int, required=True)
    p.add_argument("--cap", type=float, default=0)
    p.add_argument("--interval", type=float, default=0.1)
    p.add_argument("--settle", type=float, default=1.0)
    p.add_argument("--timeout", type=float, default=600)
    a = p.parse_args()

    sampler = Sampler(a)
    holder = nbd.NBD()
    holder.set_handle_name("propagation-holder")
    holder.connect_uri(a.uri)
    with open(a.file, "rb") as f:
        holder.pwrite(f.read(4096), 0)
    holder.flush()
    sampler.start()
    time.sleep(0.5)  # a baseline before the write

    sampler.phase = "writing"
    t_write = time.monotonic()
    copy = subprocess.run(["nbdcopy", a.file, a.uri], stderr=subprocess.PIPE, text=True)
    if copy.returncode != 0:
        sys.exit(f"propagate.py: nbdcopy failed: {copy.stderr.strip()}")
    write_s = time.monotonic() - t_write
    sampler.phase = "draining"

    deadline = time.monotonic() + a.timeout
    drained = None
    while time.monotonic() < deadline and sampler.error is None:
        time.sleep(a.interval)
        rows = [r for r in sampler.rows if r["phase"] == "draining"]
        if not rows or rows[-1]["queue"] != 0:
            continue
        recent = [r for r in rows if r["t"] >= rows[-1]["t"] - a.settle]
        if rows[-1]["t"] - rows[0]["t"] >= a.settle and recent[0]["pushed"] == rows[-1]["pushed"]:
            drained = time.monotonic() - t_write
            break
    sampler.phase = "closed"
    holder.shutdown()
    del holder
    time.sleep(1.0)  # pushes stop once the image closes: a second of samples shows it
    sampler.stop.set()
    sampler.join()
    if sampler.error is not None:
        sys.exit(f"propagate.py: sampling failed: {sampler.error}")

    with open(a.csv, "a", newline="") as f:
        w = csv.writer(f)
        for r in sampler.rows:
            w.writerow([a.run, a.kind, f"{a.cap:.0f}", f"{r['t']:.4f}", r["phase"], f"{r['pushed']:.0f}",
                        f"{r['received']:.0f}", f"{r['queue']:.0f}", f"{r['t_lo']:.4f}", f"{r['t_hi']:.4f}",
                        f"{r['t_rx_lo']:.4f}", f"{r['t_rx_hi']:.4f}"])
    first = sampler.rows[0]
    last = sampler.rows[-1]
    print(f"write {write_s:.2f} s; " + (f"drained {drained:.2f} s after the write started" if drained
                                         else f"NOT drained within {a.timeout:.0f} s")
          + f"; pushed {last['pushed'] - first['pushed']:.0f} bytes, taiwan received "
          f"{last['received'] - first['received']:.0f}; {len(sampler.rows)} samples", flush=True)
    if drained is None:
        sys.exit(2)


if __name__ == "__main__":
    main()
