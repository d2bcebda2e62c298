#!/usr/bin/env bash
# Issue #24 part 2 (the paper's Fig. 9): a 3-node Cassandra cluster moved from virginia to
# taiwan, the application's way and Heliotrope's (cold). Run with --help.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HELIO=$REPO/bin/helio

WAY=both
KEYS=30000
THREADS=4
THINK_MS=40
STEADY=120
AFTER=120
RTT=75ms
BANDWIDTH=1gbit
HEAP=512m
TOKENS=8
RING_DELAY_MS=30000
NODE_TIMEOUT=900
IMAGE_SIZE=2G
PORT_OFFSET=70
STORAGE_PORT=7000
NATIVE_PORT=9042
WORK=/var/tmp/cassandra-move
DOCKER=0
OUT=/var/tmp/cassandra-move-results/$(date +%Y%m%d-%H%M%S)

usage() {
  cat <<EOF2
Usage: benchmarks/cassandra/move.sh [options]

A Cassandra 5.0 cluster (three nodes, SimpleStrategy RF 2, --keys keys of 1 KB) moved
from site A (virginia) to site B (taiwan) under load, the paper's Fig. 9:

  app         the application's own way: three nodes added at B (bootstrap, one at a
              time), then the three at A decommissioned (one at a time)
  heliotrope  "cold move": each node's data, commit log, hints and saved caches on its own
              Heliotrope image (ext4 through nbdfuse + losetup at the node's site), moved
              one node at a time: nodetool drain, stop, umount and detach at A (the image
              closes there), attach and mount at B (it opens there: blocks come by fetch
              and the background pull), start with B's address and DC and the same host
              ID (it is in its data; never replace_address)

One client per region (CassandraLoad: --threads synchronous threads, 4 reads to 1 write
of random keys, consistency ONE, --think-ms between requests) runs --steady seconds
before the move, through it, and --after seconds after it. Every node listens on its
site's range (A 127.0.1.N, B 127.0.2.N) and broadcasts the address of its WAN link
(127.0.11.N, 127.0.12.N: CassandraWan, --rtt and --bandwidth): same-DC peers and the
own site's client reach it directly, everything else across the link (README.md).

Options (defaults in brackets):
  --way app|heliotrope|both  which move(s) [$WAY]
  --keys N             keys of 1 KB [$KEYS]
  --threads N          client threads per region [$THREADS]
  --think-ms N         pause of each client thread between requests; raise it until
                       the host CPU is under 70% at steady state (summary.txt); 20 puts a
                       2-core host at 100% [$THINK_MS]
  --steady SECONDS     load before the move; the steady throughput is the median of its
                       seconds after the first 10, so more than 10 [$STEADY]
  --after SECONDS      load after the move [$AFTER]
  --rtt DURATION       emulated round trip between the sites [$RTT]
  --bandwidth RATE     emulated bandwidth per direction [$BANDWIDTH]
  --heap SIZE          each node's -Xms/-Xmx [$HEAP]
  --tokens N           num_tokens [$TOKENS]
  --ring-delay-ms MS   cassandra.ring_delay_ms (Cassandra's default 30000) [$RING_DELAY_MS]
  --image-size SIZE    each node's Heliotrope image [$IMAGE_SIZE]
  --port-offset N      helio up's ports are its defaults plus N [$PORT_OFFSET]; the nodes'
                       addresses (127.0.{1,2,11,12}.N, ports $STORAGE_PORT and $NATIVE_PORT) have no
                       offset: two runs of move.sh cannot overlap
  --docker             run the nodes in containers (benchmarks/docker: the same servers and
                       options, host networking, Testcontainers), as their users would
  --work DIR           node data, helio up's data directory, mounts [$WORK]
  --out DIR            results: throughput.csv, move.png, summary.txt, per-way
                       directories with the raw CSVs and token maps, logs/
                       [/var/tmp/cassandra-move-results/<time>]
  -h, --help           this text
Needs root (losetup, mount), /dev/fuse, nbdfuse, java, python3; Maven online once (the
first run downloads Cassandra 5.0.9 into ~/.m2).
EOF2
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --way) WAY=$2; shift 2 ;;
    --keys) KEYS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --think-ms) THINK_MS=$2; shift 2 ;;
    --steady) STEADY=$2; shift 2 ;;
    --after) AFTER=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --heap) HEAP=$2; shift 2 ;;
    --tokens) TOKENS=$2; shift 2 ;;
    --ring-delay-ms) RING_DELAY_MS=$2; shift 2 ;;
    --image-size) IMAGE_SIZE=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --docker) DOCKER=1; shift ;;
    --work) WORK=$(realpath -m "$2"); shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    *) echo "move.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done
case $WAY in app) WAYS=(app) ;; heliotrope) WAYS=(heliotrope) ;; both) WAYS=(app heliotrope) ;;
  *) echo "move.sh: --way must be app, heliotrope or both" >&2; exit 1 ;; esac

# shellcheck source=../geo/lib.sh
source "$REPO/benchmarks/geo/lib.sh"
# shellcheck source=lib.sh
source "$HERE/lib.sh"
for n in KEYS THREADS THINK_MS STEADY AFTER TOKENS RING_DELAY_MS PORT_OFFSET; do
  [[ ${!n} =~ ^[0-9]+$ ]] || die "--$(tr '[:upper:]_' '[:lower:]-' <<<"$n") must be a number"
done
((STEADY > 10)) || die "--steady must be more than 10 s: its first 10 s are warmup, the steady throughput is the median of the rest"
require_tools java python3 curl nbdfuse fusermount3 losetup mkfs.ext4 mount umount
((EUID == 0)) || die "needs root (losetup, mount)"
DELAY=$(half_duration "$RTT")
mkdir -p "$OUT/logs" "$WORK"
trap cleanup_cassandra EXIT
trap 'exit 130' INT TERM

prepare_cassandra
for way in "${WAYS[@]}"; do
  run_way "$way"
done
ensure_gnuplot
{
  echo "Cassandra moved virginia -> taiwan (Fig. 9), $(date -Is) on $(hostname), $(nproc) cores"
  echo "3 nodes, RF 2 (SimpleStrategy), $KEYS keys of 1 KB, num_tokens $TOKENS, heap $HEAP; per region $THREADS threads, 4:1 reads:writes at ONE, think ${THINK_MS} ms"
  echo "WAN $RTT RTT / $BANDWIDTH (CassandraWan links in front of every node; helio up's link between the sites)"
  echo
  python3 "$HERE/report.py" "$OUT" "${WAYS[@]}"
} | tee "$OUT/summary.txt"
log "results in $OUT (throughput.csv, move.png, summary.txt, app/, heliotrope/, logs/)"
