#!/usr/bin/env bash
# PostgreSQL's pgbench on a sync image beside a proactive one, at virginia of 'helio up', each
# RTT in turn (issue #26). Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HELIO=${HELIO:-$REPO/bin/helio}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}

RTTS="0ms 75ms"
MODES="sync proactive"
RUNTIME=60
SCALE=5
CLIENTS=4
PORT_OFFSET=270
WORK=/var/tmp/sync-pgbench
OUT=/var/tmp/sync-results/pgbench-$(date +%Y%m%d-%H%M%S)

usage() {
  cat <<EOF2
Usage: benchmarks/sync/pgbench.sh [options]

For each RTT: 'helio up' (virginia and taiwan, the RTT between them), then for each mode an
image 'pg-MODE' (1 GiB; sync: one copy at taiwan) attached at virginia as ext4 (nbdfuse,
loop, mount: benchmarks/geo/ext4-image.sh), a PostgreSQL cluster made on it (initdb,
fsync on, the defaults), 'pgbench -i -s SCALE', then 'pgbench -c CLIENTS -j 2 -T RUNTIME'
(TPC-B like: every transaction commits with an fsync of the WAL). Writes results.csv
(rtt, mode, tps, mean latency ms, initialisation s) and prints it.

Options (defaults in brackets):
  --rtts "LIST"     round trips, e.g. "0ms 75ms" [$RTTS]
  --modes "LIST"    image modes [$MODES]
  --runtime S       seconds of pgbench [$RUNTIME]
  --scale N         pgbench scale factor (100,000 accounts each) [$SCALE]
  --clients N       pgbench clients [$CLIENTS]
  --port-offset N   added to every port of helio up [$PORT_OFFSET]; PostgreSQL listens on 5432 + it
  --work DIR        data of the sites and mount points, removed first [$WORK]
  --out DIR         results and logs [$OUT]
EOF2
}

while (($#)); do
  case $1 in
    --rtts) RTTS=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --scale) SCALE=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

# shellcheck source=../geo/lib.sh
source "$REPO/benchmarks/geo/lib.sh"
require_build "$REPO"
[[ -x $PG_BIN/pgbench && -x $PG_BIN/initdb ]] || die "PostgreSQL is missing (apt-get install postgresql)"
id postgres >/dev/null 2>&1 || die "no 'postgres' user to run PostgreSQL as (apt-get install postgresql makes it)"
mkdir -p "$OUT/logs/server"
chown postgres: "$OUT/logs/server"
set_up_ports "$PORT_OFFSET"
PG_PORT=$((5432 + PORT_OFFSET))
MOUNT=$WORK/mnt
STATE=$WORK/attach

# Stops PostgreSQL and detaches the image, whatever state a run stopped in.
tidy() {
  if [[ -f $MOUNT/pg/postmaster.pid ]]; then
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$MOUNT/pg" -m fast -w stop >>"$OUT/logs/postgres.log" 2>&1 || true
  fi
  "$REPO/benchmarks/geo/ext4-image.sh" detach "$STATE" "$MOUNT" || true
}
trap 'tidy; stop_all' EXIT

echo "rtt,mode,tps,latency_ms,init_s" >"$OUT/results.csv"
for rtt in $RTTS; do
  rm -rf "$WORK"
  mkdir -p "$WORK"
  helio_up "up-$rtt" "$WORK/sites" "$rtt" 1gbit || die "helio up did not start (see $OUT/logs/up-$rtt.log)"
  for mode in $MODES; do
    image=pg-${mode:0:3}
    helio image create "$image" --size 1G --mode "$mode" --controller "$CONTROLLER" >/dev/null
    log "$rtt $mode: ext4 and a PostgreSQL cluster on $image"
    "$REPO/benchmarks/geo/ext4-image.sh" attach "$STATE" "$MOUNT" "nbd://127.0.0.1:$NBD_V/$image" mkfs
    mkdir -p "$MOUNT/pg"
    chown postgres: "$MOUNT/pg"
    start=$SECONDS
    runuser -u postgres -- "$PG_BIN/initdb" -D "$MOUNT/pg" >>"$OUT/logs/postgres.log" 2>&1
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$MOUNT/pg" -o "-p $PG_PORT -k /tmp -c listen_addresses=''" -l "$OUT/logs/server/postgres-$rtt-$mode.log" -w start >/dev/null
    runuser -u postgres -- "$PG_BIN/pgbench" -h /tmp -p "$PG_PORT" -i -s "$SCALE" postgres >>"$OUT/logs/pgbench-$rtt-$mode.log" 2>&1
    init=$((SECONDS - start))
    log "$rtt $mode: pgbench -c $CLIENTS for $RUNTIME s"
    runuser -u postgres -- "$PG_BIN/pgbench" -h /tmp -p "$PG_PORT" -c "$CLIENTS" -j 2 -T "$RUNTIME" postgres >"$OUT/logs/pgbench-$rtt-$mode.txt" 2>&1
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/logs/pgbench-$rtt-$mode.txt" | head -n 1)
    latency=$(sed -n 's/^latency average = \([0-9.]*\) ms/\1/p' "$OUT/logs/pgbench-$rtt-$mode.txt")
    [[ -n $tps ]] || die "pgbench printed no tps (see $OUT/logs/pgbench-$rtt-$mode.txt)"
    echo "$rtt,$mode,$tps,$latency,$init" >>"$OUT/results.csv"
    tidy
    wait_closed "$image" 60
  done
  stop "up-$rtt"
done
column -s, -t "$OUT/results.csv"
echo "results: $OUT/results.csv"
