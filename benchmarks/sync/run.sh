#!/usr/bin/env bash
# The sync mode's cost against proactive's, side by side on the same sites (issue #26):
# QD1 4 KiB random writes with an fsync after each, and QD32 4 KiB random writes, at
# virginia of 'helio up', each RTT in turn. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HELIO=${HELIO:-$REPO/bin/helio}

RTTS="0ms 75ms"
RUNTIME=10
ROUNDS=1
SPAN=64M
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

over the first --span of the image for --runtime seconds each, the modes alternating,
--rounds times. Writes results.csv (one line per run) and prints the table with the goals
of issue #26: at 0 ms sync >= 0.7x proactive; at 75 ms a QD1 fsync'd write within
1 RTT + 5 ms of the 0 ms figure.

Options (defaults in brackets):
  --rtts "LIST"     round trips to run, e.g. "0ms 75ms" [$RTTS]
  --runtime S       seconds per fio run [$RUNTIME]
  --rounds N        runs per mode and workload [$ROUNDS]
  --span SIZE       part of the image written [$SPAN]
  --port-offset N   added to every port of helio up (7400, 7410/7411, ...) [$PORT_OFFSET]
  --work DIR        data of the sites, removed first [$WORK]
  --out DIR         results and logs [$OUT]
EOF2
}

while (($#)); do
  case $1 in
    --rtts) RTTS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --span) SPAN=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

# shellcheck source=../geo/lib.sh
source "$REPO/benchmarks/geo/lib.sh"
trap stop_all EXIT
require_build "$REPO"
command -v fio >/dev/null || die "fio is missing (apt-get install fio)"
fio --enghelp=nbd >/dev/null 2>&1 || die "this fio has no nbd engine"
mkdir -p "$OUT/logs" "$OUT/fio"
set_up_ports "$PORT_OFFSET"

# run_fio RTT MODE WORKLOAD ROUND: one fio run on the image of MODE; its JSON in fio/.
run_fio() {
  local rtt=$1 mode=$2 workload=$3 round=$4 image=b-${2:0:3} depth=1 fsync=1
  if [[ $workload == qd32 ]]; then depth=32 fsync=0; fi
  log "$rtt $mode $workload round $round"
  fio --name="$workload" --ioengine=nbd --uri="nbd://127.0.0.1:$NBD_V/$image" --rw=randwrite --bs=4k \
    --iodepth="$depth" --fsync="$fsync" --size="$SPAN" --time_based --runtime="$RUNTIME" --randrepeat=0 \
    --output-format=json --output="$OUT/fio/$rtt-$mode-$workload-$round.json" >/dev/null
}

for rtt in $RTTS; do
  rm -rf "$WORK"
  mkdir -p "$WORK"
  helio_up "up-$rtt" "$WORK" "$rtt" 1gbit || die "helio up did not start (see $OUT/logs/up-$rtt.log)"
  helio image create b-syn --size 256M --mode sync --controller "$CONTROLLER" >/dev/null
  helio image create b-pro --size 256M --mode proactive --controller "$CONTROLLER" >/dev/null
  for ((round = 1; round <= ROUNDS; round++)); do
    for workload in qd1-fsync qd32; do
      for mode in sync proactive; do
        run_fio "$rtt" "$mode" "$workload" "$round"
        wait_closed "b-${mode:0:3}" 60
      done
    done
  done
  stop "up-$rtt"
done
python3 "$HERE/report.py" "$OUT"
