#!/usr/bin/env python3
"""What dbench.sh watches while a run goes on (standard library only).

  dbench_watch.py watch --csv-prefix P [--metrics SITE=URL ...] [--console FILE ...] [--interval 1]
      Until TERM or INT, every --interval seconds: each site's WAN waits and peer bytes from
      its /metrics into P.samples.csv (t,site,wait_fetch_s,wait_sync_s,wait_remote_s,
      peer_sent_bytes,peer_received_bytes; counters as read), and every new line of each
      console log (split at LF or CR: dbench ends progress lines either way) into
      P.console.csv (t,console,line; console is the file's index among --console), t the
      host's Unix time. A console log that does not exist yet counts as empty.
  dbench_watch.py go SOCKET
      types "go" on the guest's serial console (QEMU's console socket): the dbench guest
      starts dbench then
"""
import argparse
import csv
import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "geo"))
from prom import scrape, value  # noqa: E402

CAUSES = ("fetch", "sync", "remote")


class Tail:
    """The complete lines appended to a file since the last call."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.partial = b""

    def lines(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        self.offset += len(data)
        parts = (self.partial + data).replace(b"\r", b"\n").split(b"\n")
        self.partial = parts.pop()
        return [p.decode(errors="replace") for p in parts if p.strip()]


def watch(a):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sites = [m.split("=", 1) for m in a.metrics]
    tails = [Tail(path) for path in a.console]
    with open(a.csv_prefix + ".samples.csv", "w", newline="", buffering=1) as s, \
            open(a.csv_prefix + ".console.csv", "w", newline="", buffering=1) as c:
        samples, console = csv.writer(s), csv.writer(c)
        samples.writerow(["t", "site", "wait_fetch_s", "wait_sync_s", "wait_remote_s", "peer_sent_bytes", "peer_received_bytes"])
        console.writerow(["t", "console", "line"])
        next_at = time.monotonic()
        while True:
            for site, url in sites:
                try:
                    text = scrape(url)
                except OSError as e:  # a slow scrape on a loaded machine: the next one may do
                    print(f"dbench_watch.py: scrape of {site} failed: {e}", file=sys.stderr, flush=True)
                    continue
                waits = [value(text, "heliotrope_io_wan_wait_seconds_total", f'cause="{c}"') for c in CAUSES]
                peer = [value(text, "heliotrope_peer_bytes_total", f'direction="{d}"') for d in ("sent", "received")]
                samples.writerow([f"{time.time():.3f}", site] + [f"{w:.6f}" for w in waits] + [f"{b:.0f}" for b in peer])
            for index, tail in enumerate(tails):
                for line in tail.lines():
                    console.writerow([f"{time.time():.3f}", index, line])
            next_at += a.interval
            time.sleep(max(0.0, next_at - time.monotonic()))


def go(a):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(a.socket)
        s.sendall(b"go\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    w = sub.add_parser("watch")
    w.add_argument("--csv-prefix", required=True)
    w.add_argument("--metrics", action="append", default=[], help="SITE=URL of its /metrics")
    w.add_argument("--console", action="append", default=[])
    w.add_argument("--interval", type=float, default=1.0)
    g = sub.add_parser("go")
    g.add_argument("socket")
    a = p.parse_args()
    {"watch": watch, "go": go}[a.command](a)


if __name__ == "__main__":
    main()
