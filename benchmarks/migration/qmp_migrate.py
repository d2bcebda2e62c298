#!/usr/bin/env python3
"""Drives QEMU migrations over QMP for the migration baselines (standard library only).

  qmp_migrate.py plain SRC_QMP DST_QMP URI
      plain QEMU: 'events' on both, no other capability, 'migrate' to URI; the destination
      (started with -incoming tcp:..., without -S) resumes by itself
  qmp_migrate.py mirror SRC_QMP DST_QMP NODE NBD_LISTEN NBD_VIA URI
      storage and RAM as libvirt's --copy-storage-all: the destination (-incoming, -S)
      exports NODE with nbd-server-start NBD_LISTEN (HOST:PORT) + nbd-server-add; the source
      mirrors NODE to it through NBD_VIA (HOST:PORT, the link) with blockdev-mirror
      sync=full; at READY it migrates with pause-before-switchover; at pre-switchover it
      completes the mirror (block-job-cancel of a READY job: the target is consistent),
      migrate-continue; on completed the destination stops its NBD server and is resumed

Prints one JSON object: times in ms from QMP event timestamps (one host clock), QEMU's own
total-time and downtime from query-migrate at the source, its RAM bytes.
"""
import json
import socket
import sys
import time

TIMEOUT = 600.0


class Qmp:
    """One QMP connection: commands answered in order, events kept with their timestamps."""

    def __init__(self, path, name):
        self.name = name
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.file = self.sock.makefile("rb")
        self.events = []
        self._read()  # greeting
        self.execute("qmp_capabilities")

    def _read(self):
        line = self.file.readline()
        if not line:
            raise SystemExit(f"{self.name}: QMP connection closed (QEMU exited?)")
        msg = json.loads(line)
        if "event" in msg:
            ts = msg["timestamp"]
            msg["t"] = ts["seconds"] + ts["microseconds"] / 1e6
            self.events.append(msg)
        return msg

    def execute(self, command, **arguments):
        request = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        while True:
            msg = self._read()
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise SystemExit(f"{self.name}: {command} failed: {msg['error']['desc']}")

    def await_event(self, name, timeout=TIMEOUT, **data):
        """The first event called name whose data has these values, seen before or after this call."""
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for event in self.events[seen:]:
                if event["event"] == name and all(event.get("data", {}).get(k) == v for k, v in data.items()):
                    return event
                if event["event"] == "MIGRATION" and event["data"]["status"] in ("failed", "cancelled"):
                    raise SystemExit(f"{self.name}: migration {event['data']['status']}")
            seen = len(self.events)
            left = deadline - time.monotonic()
            if left <= 0:
                raise SystemExit(f"{self.name}: no {name} {data or ''} within {timeout} s")
            self.sock.settimeout(left)
            try:
                self._read()
            except socket.timeout:
                pass
            finally:
                self.sock.settimeout(None)


def capabilities(qmp, *names):
    qmp.execute("migrate-set-capabilities",
                capabilities=[{"capability": n, "state": True} for n in names])


def source_stats(src):
    """query-migrate at the source once it completed; 7.2 may report total-time 0 at first."""
    deadline = time.monotonic() + 10
    while True:
        info = src.execute("query-migrate")
        if info.get("total-time", 0) > 0 or time.monotonic() > deadline:
            return info
        time.sleep(0.05)


def ms(a, b):
    return round((b - a) * 1000, 1)


def result(src, dst, started, info, **extra):
    stop = src.await_event("STOP")
    resume = dst.await_event("RESUME")
    print(json.dumps(dict(
        wall_ms=ms(started, resume["t"]),
        guest_downtime_ms=ms(stop["t"], resume["t"]),
        qemu_total_ms=info.get("total-time"),
        qemu_downtime_ms=info.get("downtime"),
        ram_bytes=info.get("ram", {}).get("transferred"),
        **extra)))


def plain(src_path, dst_path, uri):
    src, dst = Qmp(src_path, "source"), Qmp(dst_path, "destination")
    capabilities(src, "events")
    capabilities(dst, "events")
    started = time.time()
    src.execute("migrate", uri=uri)
    src.await_event("MIGRATION", status="completed")
    dst.await_event("RESUME")
    result(src, dst, started, source_stats(src))


def address(text):
    host, port = text.rsplit(":", 1)
    return {"type": "inet", "host": host, "port": port}


def mirror(src_path, dst_path, node, nbd_listen, nbd_via, uri):
    src, dst = Qmp(src_path, "source"), Qmp(dst_path, "destination")
    capabilities(src, "events", "pause-before-switchover")
    capabilities(dst, "events", "late-block-activate")
    started = time.time()
    host, port = nbd_listen.rsplit(":", 1)
    dst.execute("nbd-server-start", addr={"type": "inet", "data": {"host": host, "port": port}})
    dst.execute("nbd-server-add", device=node, writable=True)
    src.execute("blockdev-add", driver="nbd", **{"node-name": "mirror-target"},
                server=address(nbd_via), export=node)
    src.execute("blockdev-mirror", **{"job-id": "mirror"}, device=node, target="mirror-target", sync="full")
    ready = src.await_event("BLOCK_JOB_READY", device="mirror")
    src.execute("migrate", uri=uri)
    switchover = src.await_event("MIGRATION", status="pre-switchover")
    src.execute("block-job-cancel", device="mirror")
    src.await_event("BLOCK_JOB_COMPLETED", device="mirror")
    src.execute("migrate-continue", state="pre-switchover")
    src.await_event("MIGRATION", status="completed")
    dst.await_event("MIGRATION", status="completed")
    dst.execute("nbd-server-stop")
    dst.execute("cont")
    dst.await_event("RESUME")
    info = source_stats(src)
    src.execute("blockdev-del", **{"node-name": "mirror-target"})
    result(src, dst, started, info, mirror_ready_ms=ms(started, ready["t"]),
           mirror_completion_ms=ms(switchover["t"], src.await_event("BLOCK_JOB_COMPLETED")["t"]))


def main(argv):
    if len(argv) == 4 and argv[0] == "plain":
        plain(*argv[1:])
    elif len(argv) == 7 and argv[0] == "mirror":
        mirror(*argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
