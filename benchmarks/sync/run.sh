#!/usr/bin/env bash
# The sync mode's cost against proactive's, side by side on the same sites (issue #26):
# QD1 4 KiB random writes with an fsync after each, QD32 4 KiB random writes, and pgbench
# on ext4, at virginia of 'helio up', each RTT in turn. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HELIO=${HELIO:-$REPO/bin/helio}

RTTS="0ms 75ms"
WORKLOADS="qd1-fsync qd32 pgbench"
RUNTIME=10
ROUNDS=1
SPAN=64M
PG_SCALE=5
PG_CLIENTS=4
PG_BIN=${PG_BIN:-$(find /usr/lib/postgresql -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1)}
PORT_OFFSET=260
WORK=/var/tmp/sync-bench
OUT=/var/tmp/sync-results/sync-$(date +%Y%m%d-%H%M%S)

usage() {
  cat <<EOF2
Usage: benchmarks/sync/run.sh [options]

For each RTT: 'helio up' (virginia and taiwan, the RTT between them, taiwan's copies
across the WAN emulator), images 'b-syn' (--mode sync, one copy at taiwan) and 'b-pro'
(--mode proactive), 256 MiB each, written at virginia over NBD by fio's libnbd engine:

  qd1-fsync  4 KiB random writes, one at a time, an fsync (NBD FLUSH) after each
  qd32       4 KiB random writes, 32 in flight, no fsync

over the first --span of the image for --runtime seconds each, and

  pgbench    images 'pg-syn' and 'pg-pro' (1 GiB) attached at virginia as ext4 (nbdfuse,
             loop, mount: benchmarks/geo/ext4-image.sh), a PostgreSQL cluster on each
             (initdb, fsync on, the defaults; 'pgbench -i -s --pg-scale' in the first
             round), then 'pgbench -c --pg-clients -j 2' for --runtime seconds (TPC-B
             like: every transaction commits with an fsync of the WAL)

the modes alternating, --rounds times. Writes results.csv (one line per run) and prints
the table with the goals of issue #26: at 0 ms sync >= 0.7x proactive; at 75 ms a QD1
fsync'd write within 1 RTT + 5 ms of the 0 ms figure.

Options (defaults in brackets):
  --rtts "LIST"     round trips to run, e.g. "0ms 75ms"; "direct" runs helio up --no-wan
                    (no emulated link at all, what the emulator costs shows against 0ms) [$RTTS]
  --runtime S       seconds per fio run [$RUNTIME]
  --workloads "L"   of qd1-fsync, qd32, pgbench [$WORKLOADS]
  --rounds N        runs per mode and workload [$ROUNDS]
  --span SIZE       part of the image fio writes [$SPAN]
  --pg-scale N      pgbench scale factor (100,000 accounts each) [$PG_SCALE]
  --pg-clients N    pgbench clients [$PG_CLIENTS]
  --port-offset N   added to every port of helio up (7400, 7410/7411, ...) and to
                    PostgreSQL's 5432 [$PORT_OFFSET]
  --work DIR        data of the sites, removed first [$WORK]
  --out DIR         results and logs [$OUT]
EOF2
}

while (($#)); do
  case $1 in
    --rtts) RTTS=$2; shift 2 ;;
    --workloads) WORKLOADS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --span) SPAN=$2; shift 2 ;;
    --pg-scale) PG_SCALE=$2; shift 2 ;;
    --pg-clients) PG_CLIENTS=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

# shellcheck source=../geo/lib.sh
source "$REPO/benchmarks/geo/lib.sh"
trap 'tidy_pg; stop_all' EXIT
require_build "$REPO"
command -v fio >/dev/null || die "fio is missing (apt-get install fio)"
fio --enghelp=nbd >/dev/null 2>&1 || die "this fio has no nbd engine"
if [[ " $WORKLOADS " == *" pgbench "* ]]; then
  [[ -x $PG_BIN/pgbench && -x $PG_BIN/initdb ]] || die "PostgreSQL is missing (apt-get install postgresql)"
  id postgres >/dev/null 2>&1 || die "no 'postgres' user to run PostgreSQL as (apt-get install postgresql makes it)"
fi
mkdir -p "$OUT/logs/server" "$OUT/fio" "$OUT/pgbench"
chown postgres: "$OUT/logs/server" 2>/dev/null || true
set_up_ports "$PORT_OFFSET"
PG_PORT=$((5432 + PORT_OFFSET))
MOUNT=$WORK/mnt
ATTACHED=$WORK/attach

# run_fio RTT MODE WORKLOAD ROUND: one fio run on the image of MODE; its JSON in fio/.
run_fio() {
  local rtt=$1 mode=$2 workload=$3 round=$4 image=b-${2:0:3} depth=1 fsync=1
  if [[ $workload == qd32 ]]; then depth=32 fsync=0; fi
  log "$rtt $mode $workload round $round"
  fio --name="$workload" --ioengine=nbd --uri="nbd://127.0.0.1:$NBD_V/$image" --rw=randwrite --bs=4k \
    --iodepth="$depth" --fsync="$fsync" --size="$SPAN" --time_based --runtime="$RUNTIME" --randrepeat=0 \
    --output-format=json --output="$OUT/fio/$rtt-$mode-$workload-$round.json" >/dev/null
}

# run_pgbench RTT MODE ROUND: pgbench on ext4 on the image pg-MODE; its output in pgbench/.
run_pgbench() {
  local rtt=$1 mode=$2 round=$3 image=pg-${2:0:3} pg=$MOUNT/pg mkfs=
  if ((round == 1)); then mkfs=mkfs; fi
  "$REPO/benchmarks/geo/ext4-image.sh" attach "$ATTACHED" "$MOUNT" "nbd://127.0.0.1:$NBD_V/$image" $mkfs
  if ((round == 1)); then
    log "$rtt $mode: a PostgreSQL cluster on $image, pgbench -i -s $PG_SCALE"
    mkdir -p "$pg"
    chown postgres: "$pg"
    runuser -u postgres -- "$PG_BIN/initdb" -D "$pg" >>"$OUT/logs/initdb.log" 2>&1
  fi
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$pg" -o "-p $PG_PORT -k /tmp -c listen_addresses=''" \
    -l "$OUT/logs/server/postgres-$rtt-$mode.log" -w start >/dev/null
  if ((round == 1)); then
    runuser -u postgres -- "$PG_BIN/pgbench" -h /tmp -p "$PG_PORT" -i -s "$PG_SCALE" postgres >>"$OUT/logs/pgbench-init.log" 2>&1
  fi
  log "$rtt $mode pgbench round $round"
  runuser -u postgres -- "$PG_BIN/pgbench" -h /tmp -p "$PG_PORT" -c "$PG_CLIENTS" -j 2 -T "$RUNTIME" postgres \
    >"$OUT/pgbench/$rtt-$mode-pgbench-$round.txt" 2>&1
  tidy_pg
}

# Stops PostgreSQL and detaches its image, whatever state a run stopped in.
tidy_pg() {
  if [[ -f $MOUNT/pg/postmaster.pid ]]; then
    runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$MOUNT/pg" -m fast -w stop >>"$OUT/logs/initdb.log" 2>&1 || true
  fi
  if [[ -d $ATTACHED ]]; then
    "$REPO/benchmarks/geo/ext4-image.sh" detach "$ATTACHED" "$MOUNT" || true
  fi
}

for rtt in $RTTS; do
  rm -rf "$WORK"
  mkdir -p "$WORK"
  if [[ $rtt == direct ]]; then set -- --no-wan; else set --; fi
  helio_up "up-$rtt" "$WORK/sites" "${rtt/direct/0ms}" 1gbit "$@" || die "helio up did not start (see $OUT/logs/up-$rtt.log)"
  for mode in sync proactive; do
    helio image create "b-${mode:0:3}" --size 256M --mode "$mode" --controller "$CONTROLLER" >/dev/null
    helio image create "pg-${mode:0:3}" --size 1G --mode "$mode" --controller "$CONTROLLER" >/dev/null
  done
  for ((round = 1; round <= ROUNDS; round++)); do
    for workload in $WORKLOADS; do
      for mode in sync proactive; do
        if [[ $workload == pgbench ]]; then
          run_pgbench "$rtt" "$mode" "$round"
          wait_closed "pg-${mode:0:3}" 60
        else
          run_fio "$rtt" "$mode" "$workload" "$round"
          wait_closed "b-${mode:0:3}" 60
        fi
      done
    done
  done
  stop "up-$rtt"
done
python3 "$HERE/report.py" "$OUT"
