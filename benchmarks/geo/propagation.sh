#!/usr/bin/env bash
# Propagation: proactive pushes from virginia to taiwan with a full queue, without and
# with the image's bandwidth cap. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

ROUNDS=3
SIZE=512M
CAP=40M
RTT=75ms
BANDWIDTH=1gbit
INTERVAL=0.1
WORK=/var/tmp/geo-propagation
OUT=/var/tmp/geo-results/propagation-$(date +%Y%m%d-%H%M%S)
PORT_OFFSET=0
KEEP_WORK=0
START_TIMEOUT=180
HELIO=$REPO/bin/helio
NBD_PYTHON=/usr/bin/python3

usage() {
  cat <<EOF
Usage: benchmarks/geo/propagation.sh [options]

Propagation (DESIGN.md section 6). Starts 'bin/helio up' (controller, sites virginia and
taiwan behind the WAN emulator at --rtt and --bandwidth). Each run: a fresh proactive
image homed at virginia with '--s 0 --transitions virginia:taiwan=1.0' (every written
block is pushed, always to taiwan), then propagate.py holds one NBD connection to it open
at virginia, writes --size of random data with nbdcopy, keeps the connection open until
the push queue has drained, and closes it. Every --interval seconds it samples virginia's
heliotrope_propagation_pushed_bytes_total{destination="taiwan"} and
heliotrope_propagation_queue, and taiwan's heliotrope_peer_bytes_total{direction="received"}.

Each round has two runs, their order alternating: 'free' (no cap) and 'capped'
(helio image create --bandwidth = --cap). Reported per run:
  push MB/s while the queue was full: pushed bytes from the last sample before the first
            push completed to the first sample, after the write, with an empty queue,
            over that time; as a percent of the link (goal for 'free': >= 80%)
  max 1 s:  the most pushed bytes between two samples whose scrapes lie within 1 s (from
            the start of the first scrape to the end of the second, so the true window is
            never longer; goal for 'capped': never more than the cap). Also shown: the
            same over windows that may be up to one scrape (a few ms) longer than 1 s
            ('loose'), and for taiwan's received bytes. Pushes at the cap come in bursts,
            so a window that spans two of them shifts by a burst when its ends move by a
            few ms: compare the strict and the loose numbers before calling a run a
            violation, and sample faster (--interval 0.02) to look closer.

Options (defaults in brackets):
  --rounds N          rounds, each one free and one capped run [$ROUNDS]
  --size SIZE         bytes written per run, and the image's size [$SIZE]
  --cap SIZE          the capped runs' --bandwidth, bytes per second in powers of 1024
                      (40M = 41943040 bytes/s = 41.9 MB/s); 0: no capped runs [$CAP]
  --rtt DURATION      emulated round-trip time [$RTT]
  --bandwidth RATE    emulated bandwidth per direction, e.g. 1gbit [$BANDWIDTH]
  --interval SECONDS  sampling interval of the metrics [$INTERVAL]
  --work DIR          the random file and helio up's data; removed on exit unless
                      --keep-work [$WORK]
  --out DIR           results: propagation-samples.csv (every sample), propagation-runs.csv
                      (one line per run), propagation.png, summary.txt, logs/
                      [/var/tmp/geo-results/propagation-<time>]
  --port-offset N     added to every port of helio up (controller 7400, gRPC 7410/7411,
                      metrics 9410/9411, NBD 10809/10810) [$PORT_OFFSET]
  --keep-work         keep --work
  --helio PATH        the helio launcher to test [$HELIO]
  -h, --help          this text

Needs nbdcopy (libnbd-bin), curl, and libnbd's Python binding for $NBD_PYTHON (Debian's
python3-libnbd; installed with bin/install-packages when missing); gnuplot-nox for the PNG.
EOF
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --cap) CAP=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --interval) INTERVAL=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --keep-work) KEEP_WORK=1; shift ;;
    --helio) HELIO=$2; shift 2 ;;
    *) echo "propagation.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive number"
SIZE_BYTES=$(size_bytes "$SIZE")
if [[ $CAP == 0 ]]; then CAP_BYTES=0; else CAP_BYTES=$(size_bytes "$CAP"); fi
LINK_BYTES=$(rate_bytes "$BANDWIDTH")
require_tools nbdcopy curl java
BUILD=$(cd "$(dirname "$HELIO")/.." && pwd)
require_build "$BUILD"
if ! "$NBD_PYTHON" -c 'import nbd' 2>/dev/null; then
  "$REPO/bin/install-packages" python3-libnbd >&2 || true
  "$NBD_PYTHON" -c 'import nbd' 2>/dev/null || die "$NBD_PYTHON has no 'nbd' module (Debian: python3-libnbd)"
fi
set_up_ports "$PORT_OFFSET"

CREATED_WORK=
[[ -d $WORK ]] || CREATED_WORK=1
mkdir -p "$WORK" "$OUT/logs"
cleanup() {
  stop_all
  if [[ $KEEP_WORK != 1 ]]; then
    rm -rf "$WORK/up"
    [[ -n $CREATED_WORK ]] && rm -rf "$WORK"
  fi
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

FILE=$WORK/data-$SIZE_BYTES.bin
RUN=pg$(date +%H%M%S)
rm -rf "$WORK/up"
random_file "$FILE" "$SIZE_BYTES"
helio_up up "$WORK/up" "$RTT" "$BANDWIDTH"

V_METRICS=http://127.0.0.1:$METRICS_V/metrics
T_METRICS=http://127.0.0.1:$METRICS_T/metrics

# Blocks still queued at virginia from an earlier run: none, before a run starts.
wait_queue_empty() {
  local deadline=$((SECONDS + 60))
  until [[ $(metric "$V_METRICS" heliotrope_propagation_queue) == 0 ]]; do
    ((SECONDS < deadline)) || die "virginia's propagation queue is not empty after 60 s"
    sleep 0.5
  done
}

# one_run N KIND CAP_BYTES
one_run() {
  local n=$1 kind=$2 cap=$3 name=$RUN-$1-$2 timeout bw=()
  ((cap > 0)) && bw=(--bandwidth "$cap")
  # Generous: the write at the cap (or a tenth of the link) three times over, plus 2 minutes.
  timeout=$(awk -v s="$SIZE_BYTES" -v c="$cap" -v l="$LINK_BYTES" \
    'BEGIN { r = (c > 0) ? c : l / 10; printf "%d", 3 * s / r + 120 }')
  wait_queue_empty
  helio image create "$name" --size "$SIZE_BYTES" --mode proactive --home virginia --s 0 \
    --transitions virginia:taiwan=1.0 "${bw[@]}" --controller "$CONTROLLER" >>"$OUT/logs/cli.log" 2>&1 ||
    die "image create $name failed (see $OUT/logs/cli.log)"
  helio image show "$name" --controller "$CONTROLLER" >>"$OUT/logs/cli.log" 2>&1 || true
  log "run $n $kind: $name$( ((cap > 0)) && echo ", cap $cap bytes/s"), writing $SIZE_BYTES bytes at virginia"
  "$NBD_PYTHON" "$HERE/propagate.py" --uri "nbd://127.0.0.1:$NBD_V/$name" --file "$FILE" \
    --source-metrics "$V_METRICS" --dest-metrics "$T_METRICS" --source virginia --dest taiwan \
    --csv "$OUT/propagation-samples.csv" --run "$n" --kind "$kind" --cap "$cap" \
    --interval "$INTERVAL" --timeout "$timeout" 2>>"$OUT/logs/propagate-errors.log" | tee -a "$OUT/logs/propagate.log" |
    sed "s/^/$(date +%T)   /" >&2 || die "run $n $kind failed (see $OUT/logs/propagate-errors.log)"
}

echo "run,kind,cap_bytes_per_s,t,phase,pushed_bytes,received_bytes,queue,t_lo,t_hi,t_rx_lo,t_rx_hi" >"$OUT/propagation-samples.csv"
for ((r = 1; r <= ROUNDS; r++)); do
  if ((CAP_BYTES == 0)); then
    one_run "$r" free 0
  elif ((r % 2)); then
    one_run "$r" free 0; one_run "$r" capped "$CAP_BYTES"
  else
    one_run "$r" capped "$CAP_BYTES"; one_run "$r" free 0
  fi
done

ensure_gnuplot
{
  echo "Propagation, $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "write $SIZE ($SIZE_BYTES bytes) per run, link $RTT RTT / $BANDWIDTH ($LINK_BYTES bytes/s), cap $CAP ($CAP_BYTES bytes/s), $ROUNDS round(s), samples every ${INTERVAL}s"
  echo
  python3 "$HERE/geo_report.py" propagation "$OUT/propagation-samples.csv" "$OUT/propagation-runs.csv" \
    "$LINK_BYTES" "$OUT/propagation.png"
} | tee "$OUT/summary.txt"
log "results in $OUT (propagation-samples.csv, propagation-runs.csv, propagation.png, summary.txt, logs/)"
