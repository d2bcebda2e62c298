#!/usr/bin/env python3
"""The DBENCH guest's serial console, seen from the host.

A Console connects to QEMU's console socket (a `-chardev socket,...,server=on`),
reads every line the guest prints on a thread of its own (an unread connected
socket would back-pressure the guest, and dbench with it), stamps each line with
the host's monotonic and wall clocks as it arrives, appends it to a CSV log, and
lets the caller send `go` and wait for a line with a deadline.

The parse functions work on any list of lines, so that the consoles of a
migration's source and destination QEMU can be joined by host time first.

dbench 4.00's progress line, once a second:
    "   4     21399    99.95 MB/sec  execute   1 sec  latency 107.709 ms"
(clients, load-file lines per client, MB/sec, phase, seconds, max latency). The MB/sec
is the average since the phase began, not that second's: interval_rates() turns the
averages into per-interval rates. The phase is "warmup" for the first fifth of -t, then
"execute" (the Throughput line is execute's), then "cleanup" (lines without MB/sec).

Run as a script it is the smoke test: python3 console.py --help.
"""
import argparse
import csv
import re
import socket
import threading
import time
from dataclasses import dataclass

BOOTED = r"^HELIO-DBENCH: booted"
START = r"^HELIO-DBENCH: start"
DONE = r"^HELIO-DBENCH: done"
SYNCED = r"^HELIO-DBENCH: synced"
FAILED = r"^HELIO-DBENCH: failed"

_PROGRESS = re.compile(
    r"^\s*(\d+)\s+(\d+)\s+([0-9.]+) MB/sec\s+(warmup|execute)\s+(\d+) sec\s+latency ([0-9.]+) ms")
_THROUGHPUT = re.compile(r"Throughput ([0-9.]+) MB/sec")


@dataclass(frozen=True)
class Line:
    monotonic: float  # host time.monotonic() when the line's LF arrived
    wall: float  # host time.time() at the same moment
    text: str  # without CR LF


@dataclass(frozen=True)
class Progress:
    monotonic: float
    wall: float
    phase: str  # "warmup" or "execute"
    seconds: int  # guest seconds since the phase began, as dbench prints them
    average_mb_per_sec: float  # dbench's MB/sec: the average since the phase began
    clients: int
    latency_ms: float  # the largest latency of the second


@dataclass(frozen=True)
class Rate:
    monotonic: float  # host arrival of the line that closes the interval
    wall: float
    phase: str
    seconds: int  # guest seconds at the end of the interval
    mb_per_sec: float  # MB done in the interval / its guest seconds


def parse_progress(lines):
    """The dbench progress lines among lines, in their order."""
    out = []
    for line in lines:
        m = _PROGRESS.match(line.text)
        if m:
            out.append(Progress(line.monotonic, line.wall, m.group(4), int(m.group(5)),
                                float(m.group(3)), int(m.group(1)), float(m.group(6))))
    return out


def interval_rates(progress):
    """Per-interval MB/s from consecutive progress lines of one phase: dbench prints
    the average since the phase began, so the MB done up to a line is average * seconds.
    Resolution: 0.005 MB/s of the printed average times the seconds, e.g. +-0.45 MB in
    an interval at 90 s."""
    out = []
    previous = None
    for p in progress:
        if previous is not None and previous.phase == p.phase and p.seconds > previous.seconds:
            mb = p.average_mb_per_sec * p.seconds - previous.average_mb_per_sec * previous.seconds
            out.append(Rate(p.monotonic, p.wall, p.phase, p.seconds, mb / (p.seconds - previous.seconds)))
        elif p.seconds > 0 and (previous is None or previous.phase != p.phase):
            out.append(Rate(p.monotonic, p.wall, p.phase, p.seconds, p.average_mb_per_sec))
        previous = p
    return out


def final_throughput(lines):
    """MB/sec of the guest's "HELIO-DBENCH: done Throughput ..." line, None before it."""
    for line in lines:
        if re.match(DONE, line.text):
            m = _THROUGHPUT.search(line.text)
            return float(m.group(1)) if m else None
    return None


class Console:
    """One QEMU console socket. Use as a context manager, or call close()."""

    def __init__(self, socket_path, log_path=None, connect_timeout=30.0):
        self._lines = []
        self._cond = threading.Condition()
        self._closed = False
        self._sock = self._connect(socket_path, connect_timeout)
        self._log = open(log_path, "a", newline="") if log_path else None
        self._csv = csv.writer(self._log) if self._log else None
        if self._log and self._log.tell() == 0:
            self._csv.writerow(["host_monotonic", "host_wall", "line"])
        self._reader = threading.Thread(target=self._read, name="console-" + str(socket_path), daemon=True)
        self._reader.start()

    @staticmethod
    def _connect(path, timeout):
        """Retries until QEMU has created the socket, or the deadline."""
        deadline = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(str(path))
                return sock
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"console socket {path}: nobody listening after {timeout} s")
                time.sleep(0.1)

    def _read(self):
        pending = b""
        try:
            while True:
                data = self._sock.recv(65536)
                if not data:
                    break
                pending += data
                *complete, pending = pending.split(b"\n")
                if complete:
                    mono, wall = time.monotonic(), time.time()
                    self._add([Line(mono, wall, c.rstrip(b"\r").decode("utf-8", "replace")) for c in complete])
        except OSError:
            pass  # closed under us by close()
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify_all()

    def _add(self, new):
        if self._csv:
            for line in new:
                self._csv.writerow([f"{line.monotonic:.6f}", f"{line.wall:.6f}", line.text])
            self._log.flush()
        with self._cond:
            self._lines.extend(new)
            self._cond.notify_all()

    def lines(self):
        """A copy of every complete line so far."""
        with self._cond:
            return list(self._lines)

    def send(self, text):
        self._sock.sendall(text.encode())

    def go(self):
        """Tells the guest to start dbench (it reads lines containing "go" on ttyS0)."""
        self.send("go\n")

    def wait_for(self, pattern, timeout, start=0):
        """The first line at index >= start that matches the regex pattern; TimeoutError
        after timeout seconds, EOFError if the console closes first. A line matching
        FAILED raises RuntimeError at once."""
        regex = re.compile(pattern)
        failed = re.compile(FAILED)
        deadline = time.monotonic() + timeout
        index = start
        with self._cond:
            while True:
                for line in self._lines[index:]:
                    if regex.search(line.text):
                        return line
                    if failed.search(line.text):
                        raise RuntimeError("guest: " + line.text)
                index = max(index, len(self._lines))
                if self._closed:
                    raise EOFError(f"console closed before a line matching {pattern!r}")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no line matching {pattern!r} in {timeout} s")
                self._cond.wait(left)

    def close(self):
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        self._reader.join(5)
        if self._log:
            self._log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main():
    parser = argparse.ArgumentParser(
        description="Waits for the DBENCH guest to boot, sends go, waits for dbench's end, "
                    "prints its per-interval MB/s and the final throughput.")
    parser.add_argument("socket", help="QEMU's console socket (-chardev socket,path=...)")
    parser.add_argument("--log", help="append the timestamped lines to this CSV")
    parser.add_argument("--boot-timeout", type=float, default=300)
    parser.add_argument("--run-timeout", type=float, default=600, help="from go to the synced line")
    args = parser.parse_args()
    with Console(args.socket, args.log) as console:
        t0 = time.monotonic()
        booted = console.wait_for(BOOTED, args.boot_timeout)
        print(f"booted after {booted.monotonic - t0:.1f} s (from connecting): {booted.text}")
        console.go()
        go = time.monotonic()
        start = console.wait_for(START, 60)
        print(f"start {start.monotonic - go:.2f} s after go")
        console.wait_for(SYNCED, args.run_timeout)
        lines = console.lines()
    for rate in interval_rates(parse_progress(lines)):
        print(f"{rate.monotonic - go:8.2f} s  {rate.phase:7} {rate.seconds:4d}  {rate.mb_per_sec:8.2f} MB/s")
    print(f"final throughput: {final_throughput(lines)} MB/s")


if __name__ == "__main__":
    main()
