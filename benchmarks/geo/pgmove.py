#!/usr/bin/python3
"""Helpers of pg-move.sh (standard library only).

  pgmove.py sample --metrics URL --csv OUT.csv [--peer virginia] [--interval 0.2]
      Until TERM or INT, every --interval seconds: the new holder's pull and WAN counters
      from its /metrics, one CSV line each, flushed at once:
      t,t_lo,t_hi,has_pull,pull_bytes,pull_blocks,elsewhere_blocks,lacked_blocks,
      pull_running,redundant_blocks,wan_received_bytes
      t_lo/t_hi: the scrape's start and end (Unix time, seconds), t their middle;
      has_pull: 1 when the site exports any heliotrope_pull_ metric (a build without the
      pull reads 0 for all of them); wan_received_bytes:
      heliotrope_peer_bytes_total{peer=PEER,direction="received"}.
  pgmove.py region FILE BYTES
      the offset of the BYTES-long window of FILE (aligned to BYTES) that holds the most
      data (SEEK_DATA/SEEK_HOLE, so a sparse file's holes count as none)
  pgmove.py iops FIO_JSON
      the read IOPS of the fio job in FIO_JSON (--output-format=json), rounded
"""
import argparse
import json
import os
import signal
import sys
import time

from prom import scrape, value


def sample(a):
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    peer = f'peer="{a.peer}"'
    with open(a.csv, "w", buffering=1) as out:
        out.write("t,t_lo,t_hi,has_pull,pull_bytes,pull_blocks,elsewhere_blocks,lacked_blocks,"
                  "pull_running,redundant_blocks,wan_received_bytes\n")
        next_at = time.monotonic()
        while True:
            next_at += a.interval
            t_lo = time.time()
            try:
                text = scrape(a.metrics)
            except OSError as e:  # a slow scrape on a loaded machine: the next one may do
                print(f"pgmove.py: scrape failed: {e}", file=sys.stderr, flush=True)
                time.sleep(max(0.0, next_at - time.monotonic()))
                continue
            t_hi = time.time()
            numbers = [value(text, "heliotrope_pull_bytes_total"),
                       value(text, "heliotrope_pull_blocks_total"),
                       value(text, "heliotrope_pull_elsewhere_blocks"),
                       value(text, "heliotrope_pull_lacked_blocks"),
                       value(text, "heliotrope_pull_running"),
                       value(text, "heliotrope_peer_fetch_redundant_blocks_total"),
                       value(text, "heliotrope_peer_bytes_total", peer, 'direction="received"')]
            out.write(f"{(t_lo + t_hi) / 2:.4f},{t_lo:.4f},{t_hi:.4f},{int('heliotrope_pull_' in text)},"
                      + ",".join(f"{n:.0f}" for n in numbers) + "\n")
            time.sleep(max(0.0, next_at - time.monotonic()))


def region(path, width):
    """Offset of the aligned window of `width` bytes with the most data in the file."""
    data = {}
    with open(path, "rb") as f:
        fd = f.fileno()
        end = os.fstat(fd).st_size
        pos = 0
        while pos < end:
            try:
                start = os.lseek(fd, pos, os.SEEK_DATA)
            except OSError:  # ENXIO: no data after pos
                break
            stop = os.lseek(fd, start, os.SEEK_HOLE)
            while start < stop:  # split the extent at window boundaries
                w = start // width
                cut = min(stop, (w + 1) * width)
                data[w] = data.get(w, 0) + cut - start
                start = cut
            pos = stop
    best = max(sorted(data), key=lambda w: data[w], default=0)
    return best * width


def iops(path):
    with open(path) as f:
        text = f.read()
    # fio may print notes before the JSON object.
    job = json.loads(text[text.index("{"):])["jobs"][0]
    return round(job["read"]["iops"])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--metrics", required=True)
    s.add_argument("--csv", required=True)
    s.add_argument("--peer", default="virginia")
    s.add_argument("--interval", type=float, default=0.2)
    r = sub.add_parser("region")
    r.add_argument("file")
    r.add_argument("bytes", type=int)
    i = sub.add_parser("iops")
    i.add_argument("json")
    a = p.parse_args()
    if a.command == "sample":
        sample(a)
    elif a.command == "region":
        print(region(a.file, a.bytes))
    else:
        print(iops(a.json))


if __name__ == "__main__":
    main()
