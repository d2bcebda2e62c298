#!/usr/bin/env bash
# Replays the committed dbench block trace with the VM's move from virginia to taiwan,
# once per propagation mode. Run with --help.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

MODES=${MODES:-proactive on-demand sync remote}
TRACE=${TRACE:-$HERE/dbench-4c.trace.csv.xz}
LIMIT=${LIMIT:-0}
MOVE_AT=${MOVE_AT:-0.3333}
WINDOW=${WINDOW:-30}
MAX_INFLIGHT=${MAX_INFLIGHT:-64}
ORDER=${ORDER:-time}
WAN_RTT=${WAN_RTT:-75ms}
WAN_BANDWIDTH=${WAN_BANDWIDTH:-1gbit}
HELIO_ARGS=${HELIO_ARGS:-}
IMAGE_ARGS=${IMAGE_ARGS:-}
WORK=${WORK:-/var/tmp/dbench-trace-replay}
OUT=${OUT:-/var/tmp/dbench-trace-results-$(date +%Y%m%d-%H%M%S)}
START_TIMEOUT=${START_TIMEOUT:-180}
CONTROLLER=127.0.0.1:7400

usage() {
  cat <<EOF
Usage: benchmarks/dbench-trace/replay.sh [--help]

For each mode in \$MODES: starts a fresh 'bin/helio up' (virginia and taiwan behind an
emulated WAN of \$WAN_RTT and \$WAN_BANDWIDTH, data in \$WORK/MODE), creates image
dbench-MODE of the trace's size with that mode, homed at virginia, transition hint
virginia:taiwan=1.0, and runs replay.py: the trace's setup (mkfs, mount) at virginia as
the initial state, then the dbench workload at its recorded times at virginia, and at
\$MOVE_AT of its duration the move (flush, disconnect, connect at taiwan: the open waits
for virginia's release), the rest at taiwan. Stops the cluster, next mode.

Measures per mode: completion time (workload start to its last reply), the share of
blocks read at taiwan that were current there (heliotrope_view_read_blocks_total
{source="here"} over here+fetched) in the first \$WINDOW s after the move, WAN bytes
each way over the workload (heliotrope_peer_bytes_total received at each site from the
other), per-second throughput, and how far the replay ran behind the trace.

Outputs in \$OUT: MODE.series.csv (per second), MODE.summary.csv, summary.csv (all
modes), summary.txt (the table and the goal checks), dbench-trace.png (throughput per
second per mode with the move dashed, as the paper's Fig. 12; WAN MiB per mode, Fig.
13b), logs/. Goals: proactive serves >= 2x on-demand's share of reads locally, sends
fewer WAN bytes than sync, finishes first.

Needs ports 7400, 10809-10810, 7410-7411, 9410-9411 free (no other 'helio up'), the
built distribution (bin/helio builds it when missing), Debian's python3-libnbd, gnuplot
for the plot (installed with bin/install-packages gnuplot-nox when missing and root).

Environment (defaults in brackets):
  MODES          modes to run, in order [$MODES]
  TRACE          the block trace [benchmarks/dbench-trace/dbench-4c.trace.csv.xz]
  LIMIT          replay only the first LIMIT seconds of the workload, 0 = all (smoke) [$LIMIT]
  MOVE_AT        the move, as a fraction of the workload's duration [$MOVE_AT]
  WINDOW         seconds after the move over which the local read share counts [$WINDOW]
  MAX_INFLIGHT   requests in flight at most, over all connections [$MAX_INFLIGHT]
  ORDER          time: a request waits for its recorded time and a free slot; recorded:
                 also for every request whose reply came before it in the recording
                 (near-serial: the recording server replied in microseconds) [$ORDER]
  WAN_RTT, WAN_BANDWIDTH  helio up --wan-rtt / --wan-bandwidth [$WAN_RTT, $WAN_BANDWIDTH]
  HELIO_ARGS     more flags for helio up []
  IMAGE_ARGS     more flags for helio image create, e.g. '--k 1000 --s 0.5' []
  WORK           cluster data, one directory per mode, removed at the end unless KEEP_WORK=1 [$WORK]
  OUT            results [/var/tmp/dbench-trace-results-<timestamp>]
  START_TIMEOUT  seconds to wait for helio up [$START_TIMEOUT]
EOF
}
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }
(($# == 0)) || { usage >&2; exit 1; }

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
die() { log "$*"; exit 1; }

# Debian's python3 has libnbd's binding; a python3 earlier in PATH may not.
PY=(env PATH="/usr/bin:$PATH" PYTHONDONTWRITEBYTECODE=1 python3)
"${PY[@]}" -c 'import nbd' 2>/dev/null || {
  "$REPO/bin/install-packages" python3-libnbd || die "needs libnbd's Python binding (python3-libnbd)"
}
command -v gnuplot >/dev/null || "$REPO/bin/install-packages" gnuplot-nox ||
  log "gnuplot-nox not installed: no PNG"
[[ -r $TRACE ]] || die "no trace $TRACE (record one with record.sh)"
SIZE=$("${PY[@]}" -c 'import sys; sys.path.insert(0, sys.argv[1]); import blocktrace; print(blocktrace.read(sys.argv[2])[0]["size"])' \
  "$HERE" "$TRACE")

HELIO_PID=''
alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

stop_cluster() {
  local i
  [[ -n $HELIO_PID ]] || return 0
  kill -TERM -- "-$HELIO_PID" 2>/dev/null || kill -TERM "$HELIO_PID" 2>/dev/null || true
  for ((i = 0; i < 150; i++)); do alive "$HELIO_PID" || break; sleep 0.2; done
  alive "$HELIO_PID" && { log "helio up ($HELIO_PID) still running after 30 s; killing it"; kill -KILL -- "-$HELIO_PID" 2>/dev/null || true; }
  wait "$HELIO_PID" 2>/dev/null || true
  HELIO_PID=''
}

cleanup() {
  stop_cluster
  [[ ${KEEP_WORK:-0} == 1 ]] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_cluster() {
  local mode=$1 deadline=$((SECONDS + START_TIMEOUT)) port
  for port in 7400 10809 10810 7410 7411 9410 9411; do
    port_busy "$port" && die "port $port is in use: stop the other cluster first"
  done
  rm -rf "${WORK:?}/$mode"
  mkdir -p "$WORK/$mode"
  # shellcheck disable=SC2086  # HELIO_ARGS is a word list
  setsid "$REPO/bin/helio" up --data-dir "$WORK/$mode" --wan-rtt "$WAN_RTT" \
    --wan-bandwidth "$WAN_BANDWIDTH" $HELIO_ARGS </dev/null >"$OUT/logs/helio-$mode.log" 2>&1 &
  HELIO_PID=$!
  until grep -q 'Press Ctrl-C to stop' "$OUT/logs/helio-$mode.log"; do
    alive "$HELIO_PID" || { tail -n 20 "$OUT/logs/helio-$mode.log" >&2; die "helio up exited"; }
    ((SECONDS < deadline)) || die "helio up not ready after ${START_TIMEOUT}s (see $OUT/logs/helio-$mode.log)"
    sleep 0.5
  done
}

mkdir -p "$OUT/logs"
"${PY[@]}" "$HERE/blocktrace.py" stats "$TRACE" | tee "$OUT/trace.txt" >&2
done_modes=()
for mode in $MODES; do
  log "== $mode"
  start_cluster "$mode"
  image=dbench-$mode
  # shellcheck disable=SC2086  # IMAGE_ARGS is a word list
  "$REPO/bin/helio" image create "$image" --size "$SIZE" --mode "$mode" --home virginia \
    --transitions virginia:taiwan=1.0 $IMAGE_ARGS --controller "$CONTROLLER" >&2
  if "${PY[@]}" "$HERE/replay.py" --trace "$TRACE" --mode "$mode" \
      --from-uri "nbd://127.0.0.1:10809/$image" --to-uri "nbd://127.0.0.1:10810/$image" \
      --from-metrics http://127.0.0.1:9410/metrics --to-metrics http://127.0.0.1:9411/metrics \
      --move-at "$MOVE_AT" --window "$WINDOW" --limit "$LIMIT" --max-inflight "$MAX_INFLIGHT" --order "$ORDER" \
      --out-dir "$OUT" 2> >(tee "$OUT/logs/replay-$mode.log" >&2); then
    :
  else
    log "$mode: replay failed or saw errors (see $OUT/logs/replay-$mode.log)"
  fi
  [[ -s $OUT/$mode.summary.csv ]] && done_modes+=("$mode")
  "$REPO/bin/helio" image show "$image" --controller "$CONTROLLER" >"$OUT/logs/image-$mode.txt" 2>&1 || true
  stop_cluster
done
((${#done_modes[@]})) || die "no mode finished"
{
  echo "DBENCH trace replay $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "trace $TRACE$([[ $LIMIT == 0 ]] || echo " (first ${LIMIT}s)"); WAN $WAN_RTT $WAN_BANDWIDTH; move at $MOVE_AT; window ${WINDOW}s; order $ORDER, at most $MAX_INFLIGHT in flight"
  echo
} >"$OUT/header.txt"
cat "$OUT/header.txt"
PYTHONDONTWRITEBYTECODE=1 python3 "$HERE/report.py" "$OUT" "${done_modes[@]}"
cat "$OUT/header.txt" "$OUT/summary.txt" >"$OUT/summary.tmp" && mv "$OUT/summary.tmp" "$OUT/summary.txt"
log "results in $OUT"
