#!/usr/bin/env python3
"""Replays a block trace (blocktrace.py) against one image, moving the VM from site A to B.

Run by replay.sh with Debian's python3 (libnbd's binding); --help for the options.

1. Initial state: the trace's setup requests (t_us < 0: mkfs, mount) as fast as they
   go, over as many connections as were recorded, at A; flush; disconnect.
2. The workload (t_us >= 0) at its recorded times over fresh connections to A, in the
   recorded order; a request that falls behind its time goes out as soon as fewer than
   --max-inflight are in flight (the replay is then I/O-bound). A request that overlaps
   one in flight, where either writes, waits for it (the client ordered them: they never
   were in flight together in the recording) while later ones that do not overlap go
   ahead, among the next 256 due. With --order recorded, a
   request also waits for every request whose recorded reply came before it reached the
   server (near-serial for a trace recorded on a fast server). Until --move-at of the
   trace's duration:
3. The move: wait for every request in flight, flush, disconnect from A (the image closes
   there), connect to B (the open waits for A's release), and replay the rest at B.

Outputs in --out-dir: MODE.series.csv (per second), MODE.summary.csv (one row).
"""
import argparse
import csv
import errno
import os
import random
import select
import sys
import threading
import time
import urllib.request

import nbd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blocktrace  # noqa: E402  (beside this file)

BLOCK = 4096


def parse_metrics(text):
    """{'here': n, 'fetched': n, 'received': {peer: bytes}, 'sent': {peer: bytes}}"""
    m = {"here": 0.0, "fetched": 0.0, "received": {}, "sent": {}}
    for line in text.splitlines():
        if line.startswith("heliotrope_view_read_blocks_total{"):
            labels, value = line[len("heliotrope_view_read_blocks_total{"):].split("} ")
            src = labels.split('source="')[1].split('"')[0]
            m[src] = m.get(src, 0.0) + float(value)
        elif line.startswith("heliotrope_peer_bytes_total{"):
            labels, value = line[len("heliotrope_peer_bytes_total{"):].split("} ")
            d = labels.split('direction="')[1].split('"')[0]
            peer = labels.split('peer="')[1].split('"')[0]
            m[d][peer] = m[d].get(peer, 0.0) + float(value)
    return m


class Sites:
    """Metrics of both sites, sampled together."""

    def __init__(self, url_a, url_b, name_a, name_b):
        self.urls = (url_a, url_b)
        self.names = (name_a, name_b)

    def sample(self):
        out = []
        for url in self.urls:
            with urllib.request.urlopen(url, timeout=5) as r:
                out.append(parse_metrics(r.read().decode()))
        return {"t": time.monotonic(), "a": out[0], "b": out[1]}

    def wan(self, s0, s1):
        """Bytes A->B and B->A between two samples: what each site received from the other."""
        a, b = self.names
        ab = s1["b"]["received"].get(a, 0) - s0["b"]["received"].get(a, 0)
        ba = s1["a"]["received"].get(b, 0) - s0["a"]["received"].get(b, 0)
        return ab, ba


class Sampler(threading.Thread):
    """Samples both sites at t0 + 1 s, + 2 s, ..., and once at move + window."""

    def __init__(self, sites, t0, window):
        super().__init__(name="metrics-sampler", daemon=True)
        self.sites, self.t0, self.window = sites, t0, window
        self.samples = []          # one per whole second from t0, index = second
        self.move_t = None
        self.window_sample = None
        self.stopping = threading.Event()

    def run(self):
        k = 1
        while not self.stopping.is_set():
            due = self.t0 + k
            if self.move_t is not None and self.window_sample is None:
                due = min(due, self.move_t + self.window)
            self.stopping.wait(max(0.0, due - time.monotonic()))
            if self.stopping.is_set():
                break
            try:
                s = self.sites.sample()
            except OSError as e:
                print(f"replay: metrics sample failed: {e}", file=sys.stderr)
                s = None
            now = time.monotonic()
            if self.move_t is not None and self.window_sample is None and now >= self.move_t + self.window:
                self.window_sample = s
            if now >= self.t0 + k - 0.05:
                self.samples.append(s)
                k += 1


class Replayer:
    """Issues trace requests on a set of libnbd handles, in order, gated by time and by
    the recorded reply order; counts what completes per second."""

    def __init__(self, requests, max_inflight, max_len):
        self.req = requests
        self.after = blocktrace.dependencies(requests)
        self.rank = blocktrace.reply_order(requests)
        self.done = bytearray(len(requests))
        self.frontier = 0           # replies done, as a prefix of the recorded reply order
        self.max_inflight = max_inflight
        self.inflight = 0
        self.reading = {}           # block -> reads (and caches) of it in flight
        self.writing = {}           # block -> writes, zeroes, trims of it in flight
        self.waited = set()         # requests that waited for an overlapping one
        self.reorder = 256          # due requests considered for issue, in order
        self.errors = {}            # "op:ERRNO" -> count
        self.first_error = None     # (seconds into the workload, "op:ERRNO", its latency)
        self.adapted = {}
        self.buffers = {}
        rnd = random.Random(42)
        self.pattern = bytes(rnd.getrandbits(8) for _ in range(1 << 16)) * ((max_len >> 16) + 1)
        self.handles = []
        self.t0 = None
        self.per_second = {}        # second -> [ops, read bytes, write bytes]
        self.lags = []
        self.last_reply = 0.0

    def buffer(self, length):
        b = self.buffers.get(length)
        if b is None:
            b = nbd.Buffer.from_bytearray(bytearray(self.pattern[:length]))
            self.buffers[length] = b
        return b

    def connect(self, uri, count):
        self.handles = []
        for _ in range(count):
            h = nbd.NBD()
            h.set_handle_name(f"replay{len(self.handles)}")
            h.connect_uri(uri)
            self.handles.append(h)

    def close(self):
        for h in self.handles:
            h.shutdown()        # NBD_CMD_DISC once nothing is in flight
        self.handles = []       # the last reference closes the socket

    def _completion(self, i):
        issued = time.monotonic()

        def cb(err):
            now = time.monotonic()
            self.inflight -= 1
            r = self.req[i]
            self._track(r, -1)
            if err.value:
                key = f"{r.op}:{errno.errorcode.get(err.value, err.value)}"
                self.errors[key] = self.errors.get(key, 0) + 1
                if self.first_error is None:
                    self.first_error = (round(now - (self.t0 or now), 2), key, round(now - issued, 2))
            self.done[self.rank[i]] = 1
            while self.frontier < len(self.done) and self.done[self.frontier]:
                self.frontier += 1
            if self.t0 is not None:
                s = self.per_second.setdefault(int(now - self.t0), [0, 0, 0])
                s[0] += 1
                if r.op == "R":
                    s[1] += r.length
                elif r.op == "W":
                    s[2] += r.length
                self.last_reply = max(self.last_reply, now - self.t0)
            return 1
        return cb

    def _blocks(self, r):
        return range(r.offset // BLOCK, (r.offset + r.length + BLOCK - 1) // BLOCK)

    def _track(self, r, delta):
        if r.op in "RC":
            table = self.reading
        elif r.op in "WZT":
            table = self.writing
        else:
            return
        for b in self._blocks(r):
            n = table.get(b, 0) + delta
            if n:
                table[b] = n
            else:
                del table[b]

    def _adapt(self, what):
        self.adapted[what] = self.adapted.get(what, 0) + 1

    def issue(self, i):
        r = self.req[i]
        h = self.handles[r.conn % len(self.handles)]
        flags = 0
        if "fua" in r.flags:
            if h.can_fua():
                flags |= nbd.CMD_FLAG_FUA
            else:
                self._adapt("fua dropped")
        cb = self._completion(i)
        self._track(r, +1)
        if r.op == "R":
            h.aio_pread(self.buffer(r.length), r.offset, completion=cb)
        elif r.op == "W":
            h.aio_pwrite(self.buffer(r.length), r.offset, completion=cb, flags=flags)
        elif r.op == "F":
            h.aio_flush(completion=cb)
        elif r.op == "T":
            if not h.can_trim():
                self._adapt("trim skipped")
                self.inflight += 1
                cb(nbd_ok)
                return
            h.aio_trim(r.length, r.offset, completion=cb, flags=flags)
        elif r.op == "Z":
            if "trim" not in r.flags:
                flags |= nbd.CMD_FLAG_NO_HOLE
            if "fast" in r.flags and h.can_fast_zero():
                flags |= nbd.CMD_FLAG_FAST_ZERO
            h.aio_zero(r.length, r.offset, completion=cb, flags=flags)
        elif r.op == "C":
            if h.can_cache():
                h.aio_cache(r.length, r.offset, completion=cb)
            else:
                self._adapt("cache skipped")
                self.inflight += 1
                cb(nbd_ok)
                return
        else:
            raise ValueError(f"unknown op {r.op!r}")
        self.inflight += 1

    def poll(self, timeout):
        p = select.poll()
        fds = {}
        for h in self.handles:
            d = h.aio_get_direction()
            ev = (select.POLLIN if d & nbd.AIO_DIRECTION_READ else 0) | \
                 (select.POLLOUT if d & nbd.AIO_DIRECTION_WRITE else 0)
            if ev:
                fd = h.aio_get_fd()
                fds[fd] = h
                p.register(fd, ev)
        for fd, ev in p.poll(max(0, int(timeout * 1000))):
            h = fds[fd]
            if ev & (select.POLLIN | select.POLLHUP | select.POLLERR):
                h.aio_notify_read()
            if ev & select.POLLOUT:
                h.aio_notify_write()

    def run(self, first, end, timed, ordered):
        """Requests [first, end), then waits for all of them. Times relative to self.t0;
        ordered: each waits for the requests whose replies came before it in the recording."""
        i = first           # the next request not yet due
        pending = []        # due, not issued: waiting for a slot or for an overlapping request
        while i < end or pending or self.inflight:
            now = time.monotonic()
            wait = 0.5
            while i < end and len(pending) < self.reorder:
                if ordered and self.frontier < self.after[i]:
                    break
                if timed:
                    due = self.t0 + self.req[i].t_us / 1e6
                    if due > now:
                        wait = min(wait, due - now)
                        break
                pending.append(i)
                i += 1
            if pending:
                pending = self._issue(pending, now, timed)
            if self.inflight or pending or i < end:
                self.poll(wait)

    def _issue(self, pending, now, timed):
        """Issues what it may of pending, in order; returns the rest. A request waits while
        a request in flight, or an earlier one still waiting, overlaps it and either
        changes data (the client ordered them: the recording never had both in flight); a
        flush waits for the writes before it to be issued."""
        held_r, held_w = set(), set()
        write_held = False
        keep = []
        for n, j in enumerate(pending):
            if self.inflight >= self.max_inflight:
                keep.extend(pending[n:])
                break
            r = self.req[j]
            blocks = self._blocks(r)
            if r.op == "F":
                ok = not write_held
            elif r.op in "RC":
                ok = not any(b in self.writing or b in held_w for b in blocks)
            else:
                ok = not any(b in self.writing or b in self.reading or b in held_w or b in held_r for b in blocks)
            if ok:
                if timed:
                    self.lags.append(now - (self.t0 + r.t_us / 1e6))
                self.issue(j)
                continue
            if j not in self.waited:
                self.waited.add(j)
            keep.append(j)
            if r.op in "RC":
                held_r.update(blocks)
            elif r.op in "WZT":
                held_w.update(blocks)
                write_held = True
        return keep

    def flush_all(self):
        for h in self.handles:
            h.flush()


class _Ok:
    value = 0


nbd_ok = _Ok()


def percentile(values, q):
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--mode", required=True, help="label of this run (the image's mode)")
    ap.add_argument("--from-uri", required=True, help="the image at site A, nbd://...")
    ap.add_argument("--to-uri", required=True, help="the image at site B")
    ap.add_argument("--from-metrics", required=True, help="site A's /metrics URL")
    ap.add_argument("--to-metrics", required=True, help="site B's /metrics URL")
    ap.add_argument("--from-site", default="virginia")
    ap.add_argument("--to-site", default="taiwan")
    ap.add_argument("--move-at", type=float, default=1 / 3, help="fraction of the workload's duration (1/3)")
    ap.add_argument("--window", type=float, default=30.0, help="seconds after the move for the local read share (30)")
    ap.add_argument("--limit", type=float, default=0, help="replay only the first SECONDS of the workload (0: all)")
    ap.add_argument("--max-inflight", type=int, default=64, help="requests in flight at most, over all connections (64)")
    ap.add_argument("--order", choices=("time", "recorded"), default="time",
                    help="time: a request waits only for its time (default); recorded: also for the "
                         "requests whose replies came before it in the recording")
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args()

    meta, reqs = blocktrace.read(a.trace)
    if a.limit > 0:
        reqs = [r for r in reqs if r.t_us < a.limit * 1e6]
    setup = sum(1 for r in reqs if r.t_us < 0)
    work = reqs[setup:]
    duration = max(r.t_us + r.lat_us for r in work) / 1e6
    move_at = a.move_at * duration
    split = setup + sum(1 for r in work if r.t_us < move_at * 1e6)
    conns = len({r.conn for r in reqs})
    rp = Replayer(reqs, a.max_inflight, max(r.length for r in reqs if r.op in "RW"))
    ordered = a.order == "recorded"
    sites = Sites(a.from_metrics, a.to_metrics, a.from_site, a.to_site)
    log = lambda msg: print(f"{time.strftime('%T')} {a.mode}: {msg}", file=sys.stderr, flush=True)

    log(f"{len(work)} requests over {duration:.1f} s after {setup} setup requests, "
        f"{conns} connections; the move after {move_at:.1f} s (request {split - setup})")
    s_prep0 = sites.sample()
    rp.connect(a.from_uri, conns)
    t = time.monotonic()
    rp.run(0, setup, timed=False, ordered=True)     # a discard must not overtake mkfs' writes
    rp.flush_all()
    rp.close()
    time.sleep(1)               # the close's final flush, checkpoint
    s_start = sites.sample()
    prep_ab, prep_ba = sites.wan(s_prep0, s_start)
    log(f"initial state written at {a.from_site} in {time.monotonic() - t:.1f} s "
        f"(WAN {prep_ab / 2**20:.1f} MiB A->B)")

    rp.connect(a.from_uri, conns)
    rp.t0 = time.monotonic()
    sampler = Sampler(sites, rp.t0, a.window)
    sampler.start()
    rp.run(setup, split, timed=True, ordered=ordered)
    t_move = time.monotonic()
    rp.flush_all()
    rp.close()
    rp.connect(a.to_uri, conns)
    t_moved = time.monotonic()
    s_move = sites.sample()
    sampler.move_t = t_moved
    log(f"moved to {a.to_site} at {t_move - rp.t0:.1f} s (trace time {move_at:.1f} s), "
        f"{t_moved - t_move:.2f} s from the last request at A to connected at B")
    rp.run(split, len(reqs), timed=True, ordered=ordered)
    completion = rp.last_reply
    t_end = time.monotonic()
    rp.close()
    time.sleep(1)
    s_end = sites.sample()
    sampler.stopping.set()
    sampler.join()
    s_win = sampler.window_sample or s_end

    here = s_win["b"]["here"] - s_move["b"]["here"]
    fetched = s_win["b"]["fetched"] - s_move["b"]["fetched"]
    local = here / (here + fetched) if here + fetched else float("nan")
    wan_ab, wan_ba = sites.wan(s_start, s_end)
    lags = [x for x in rp.lags]
    errors = sum(rp.errors.values())
    summary = {
        "mode": a.mode,
        "order": a.order,
        "max_inflight": a.max_inflight,
        "requests": len(work),
        "trace_s": round(duration, 3),
        "completion_s": round(completion, 3),
        "move_s": round(t_move - rp.t0, 3),
        "move_pause_s": round(t_moved - t_move, 3),
        "reads_at_b_window_blocks": int(here + fetched),
        "local_share_window": round(local, 4),
        "window_s": round(min(a.window, t_end - t_moved), 1),
        "wan_ab_mib": round(wan_ab / 2**20, 2),
        "wan_ba_mib": round(wan_ba / 2**20, 2),
        "setup_wan_ab_mib": round(prep_ab / 2**20, 2),
        "lag_p50_ms": round(percentile(lags, 0.5) * 1e3, 1),
        "lag_p99_ms": round(percentile(lags, 0.99) * 1e3, 1),
        "lag_max_ms": round(max(lags, default=0) * 1e3, 1),
        "late_10ms_share": round(sum(1 for x in lags if x > 0.01) / len(lags), 4) if lags else 0,
        "waits_for_overlap": len(rp.waited),
        "errors": errors,
        "first_error": f"{rp.first_error[1]} at {rp.first_error[0]} s" if rp.first_error else "",
    }
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, f"{a.mode}.summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(summary))
        w.writeheader()
        w.writerow(summary)

    # Per second: what completed, and the metrics deltas over that second.
    samples = [s_start] + sampler.samples
    seconds = int(completion) + 1
    with open(os.path.join(a.out_dir, f"{a.mode}.series.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["second", "site", "ops", "read_mib", "write_mib", "mib",
                    "b_reads_here", "b_reads_fetched", "wan_ab_mib", "wan_ba_mib"])
        for k in range(seconds):
            ops, rb, wb = rp.per_second.get(k, [0, 0, 0])
            site = a.from_site if k + 1 <= t_move - rp.t0 else a.to_site
            row = [k, site, ops, round(rb / 2**20, 3), round(wb / 2**20, 3), round((rb + wb) / 2**20, 3)]
            if k + 1 < len(samples) and samples[k] and samples[k + 1]:
                s0, s1 = samples[k], samples[k + 1]
                ab, ba = sites.wan(s0, s1)
                row += [int(s1["b"]["here"] - s0["b"]["here"]), int(s1["b"]["fetched"] - s0["b"]["fetched"]),
                        round(ab / 2**20, 3), round(ba / 2**20, 3)]
            else:
                row += ["", "", "", ""]
            w.writerow(row)

    log(f"done in {completion:.1f} s (trace {duration:.1f} s; lag p50 {summary['lag_p50_ms']} ms, "
        f"max {summary['lag_max_ms']} ms); local reads at {a.to_site} in the window {local:.1%} "
        f"of {int(here + fetched)} blocks; WAN {summary['wan_ab_mib']} MiB A->B, {summary['wan_ba_mib']} MiB B->A"
        + (f"; {errors} errors {rp.errors}, the first {rp.first_error[0]} s into the workload "
           f"after {rp.first_error[2]} s in flight" if errors else "")
        + (f"; adapted {rp.adapted}" if rp.adapted else ""))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
