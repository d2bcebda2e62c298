#!/usr/bin/env python3
"""The dbench block trace: its format, and the conversion from nbdkit's log filter.

Format (text, one request a line, compressed with xz; see README.md):

    # heliotrope-block-trace v1          comment lines carry the metadata, key=value
    # size=1073741824
    t_us,conn,op,offset,length,flags,lat_us
    -2104331,1,T,0,1073741824,,35
    ...

t_us     when the request reached the server, microseconds from the workload's start;
         negative for the setup (mkfs and mount), which replays as the initial state
conn     the client connection it came on, 0-based
op       R read, W write, F flush, T trim, Z write zeroes, C cache
offset, length  bytes (0 and 0 for a flush)
flags    'fua', 'trim' (Z may unmap), 'fast' (fast zero), joined by '+'
lat_us   how long the recording server took to reply, microseconds

A request depends on every request whose reply came before it reached the server
(t_us + lat_us < its t_us): replay.py never issues it earlier than that.

Usage:
    blocktrace.py convert LOG MARKERS OUT.csv.xz [KEY=VALUE ...]   nbdkit log -> trace
    blocktrace.py stats TRACE                                       what a trace holds
"""
import bisect
import lzma
import re
import sys
from collections import namedtuple
from datetime import datetime

Request = namedtuple("Request", "t_us conn op offset length flags lat_us")

OPS = {"Read": "R", "Write": "W", "Flush": "F", "Trim": "T", "Zero": "Z", "Cache": "C"}
HEADER = "t_us,conn,op,offset,length,flags,lat_us"
MAGIC = "heliotrope-block-trace v1"

# 2026-11-24 15:17:31.587030 connection=2 Write id=8 offset=0x80000 count=0x2000 fua=0 ...
# 2026-11-24 15:17:31.587089 connection=2 ...Write id=8 return=0
LINE = re.compile(r"^(\S+ \S+) connection=(\d+) (\.\.\.)?(\w+) id=(\d+)(.*)$")


def parse_time(text):
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S.%f")


def micros(start, t):
    delta = t - start
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def parse_log(path, start):
    """Requests from an nbdkit log filter file, in the order they reached the server."""
    pending = {}  # (conn, id) -> index in out
    out = []
    failed = 0
    with open(path) as log:
        for line in log:
            m = LINE.match(line.rstrip("\n"))
            if not m or m.group(4) not in OPS:
                continue
            when, conn, leave, action, rid, rest = m.groups()
            key = (int(conn), int(rid))
            t = micros(start, parse_time(when))
            if leave:
                i = pending.pop(key, None)
                if i is None:
                    continue
                if "return=-1" in rest:
                    failed += 1
                out[i][6] = t - out[i][0]
                continue
            fields = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
            flags = [name for name in ("fua", "trim", "fast") if fields.get(name, "0") not in ("0", "")]
            pending[key] = len(out)
            out.append([t, int(conn), OPS[action], int(fields.get("offset", "0"), 16),
                        int(fields.get("count", "0"), 16), "+".join(flags), None])
    if pending:
        print(f"trace: {len(pending)} requests without a reply, dropped", file=sys.stderr)
    if failed:
        print(f"trace: {failed} requests failed in the recording (kept)", file=sys.stderr)
    # Several server threads write the log: sort by time, stable (equal times keep log order).
    out = [r for r in out if r[6] is not None]
    out.sort(key=lambda r: r[0])
    conns = sorted({r[1] for r in out})
    index = {c: i for i, c in enumerate(conns)}
    return [Request(r[0], index[r[1]], r[2], r[3], r[4], r[5], max(r[6], 0)) for r in out]


def write(path, meta, requests):
    with lzma.open(path, "wt", preset=9) as f:
        f.write(f"# {MAGIC}\n")
        for k, v in meta.items():
            f.write(f"# {k}={v}\n")
        f.write(HEADER + "\n")
        for r in requests:
            f.write(f"{r.t_us},{r.conn},{r.op},{r.offset},{r.length},{r.flags},{r.lat_us}\n")


def read(path):
    """(metadata dict, list of Request) from a trace file (.xz, .gz or plain)."""
    if path.endswith(".xz"):
        f = lzma.open(path, "rt")
    elif path.endswith(".gz"):
        import gzip
        f = gzip.open(path, "rt")
    else:
        f = open(path)
    meta, requests = {}, []
    with f:
        first = f.readline().strip()
        if first != f"# {MAGIC}":
            raise SystemExit(f"{path}: not a block trace (first line {first!r})")
        for line in f:
            if line.startswith("#"):
                k, _, v = line[1:].strip().partition("=")
                meta[k] = v
            elif line.startswith("t_us"):
                continue
            else:
                t, c, op, off, ln, fl, lat = line.rstrip("\n").split(",")
                requests.append(Request(int(t), int(c), op, int(off), int(ln), fl, int(lat)))
    return meta, requests


def dependencies(requests):
    """after[i]: how many requests, in order of their recorded replies, must be done first."""
    done = sorted(r.t_us + r.lat_us for r in requests)
    return [bisect.bisect_left(done, r.t_us) for r in requests]


def reply_order(requests):
    """rank[i]: position of request i's reply among all recorded replies."""
    order = sorted(range(len(requests)), key=lambda i: (requests[i].t_us + requests[i].lat_us, i))
    rank = [0] * len(requests)
    for pos, i in enumerate(order):
        rank[i] = pos
    return rank


def stats(requests):
    lines = []
    for name, part in (("setup", [r for r in requests if r.t_us < 0]),
                       ("workload", [r for r in requests if r.t_us >= 0])):
        if not part:
            continue
        span = (max(r.t_us + r.lat_us for r in part) - min(r.t_us for r in part)) / 1e6
        by = {}
        for r in part:
            n, b = by.get(r.op, (0, 0))
            by[r.op] = (n + 1, b + r.length)
        ops = " ".join(f"{op}={n}/{b / 2**20:.1f}MiB" for op, (n, b) in sorted(by.items()))
        conns = len({r.conn for r in part})
        lines.append(f"{name}: {len(part)} requests over {span:.1f} s on {conns} connections: {ops}")
    return "\n".join(lines)


def main(argv):
    if len(argv) >= 4 and argv[0] == "convert":
        log, markers, out = argv[1:4]
        marks = {}
        with open(markers) as f:
            for line in f:
                name, _, when = line.strip().partition(" ")
                marks[name] = parse_time(when)
        requests = parse_log(log, marks["start"])
        meta = dict(kv.split("=", 1) for kv in argv[4:])
        if "end" in marks:
            meta["workload_end_us"] = micros(marks["start"], marks["end"])
        write(out, meta, requests)
        print(stats(requests))
    elif len(argv) == 2 and argv[0] == "stats":
        meta, requests = read(argv[1])
        for k, v in meta.items():
            print(f"{k}: {v}")
        print(stats(requests))
    else:
        print(__doc__, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
