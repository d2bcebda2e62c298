#!/usr/bin/env bash
# Cold read after a move: an on-demand image read whole at taiwan right after it was
# written and closed at virginia, against nbdkit serving the same file through the same
# emulated link. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

ROUNDS=5
WARMUP=2
SIZE=256M
RTT=75ms
BANDWIDTH=1gbit
WORK=/var/tmp/geo-cold-read
OUT=/var/tmp/geo-results/cold-read-$(date +%Y%m%d-%H%M%S)
PORT_OFFSET=0
KEEP_WORK=0
VERIFY=1
START_TIMEOUT=180
CLOSE_TIMEOUT=120
HELIO=$REPO/bin/helio

usage() {
  cat <<EOF
Usage: benchmarks/geo/cold-read.sh [options]

Cold read after a move (DESIGN.md section 9). Starts 'bin/helio up' (controller, sites
virginia and taiwan, every byte between them through the WAN emulator at --rtt and
--bandwidth) and, as the peer a user would use instead, 'nbdkit file' serving the same
random file behind a WanProxyMain link with the same one-way delay (RTT / 2), bandwidth
and per-connection window (read from helio up's log, 6 MiB by default).

Each round, in alternating order (ours first in odd rounds, the peer first in even ones):
  ours  a fresh on-demand image (new name) homed at virginia; nbdcopy FILE into it at
        virginia; wait until its write lease is released (helio image show); then time
        'nbdcopy nbd://127.0.0.1:<taiwan>/NAME null:': every block crosses the link.
        taiwan's heliotrope_peer_bytes_total{direction="received"} before and after
        gives the bytes that crossed, a check that the read was cold.
  peer  time 'nbdcopy nbd://127.0.0.1:<link>/ null:'.
Both reads go to nbdcopy's 'null:' with its defaults: as many connections as threads,
min(4, cores), if the server advertises multi-conn (both do), 64 requests of 256 KiB in
flight each. Not to /dev/null: nbdcopy takes a character device for a pipe and copies
synchronously over ONE connection, one request per round trip (16 MiB from nbdkit through
the 75 ms link: 10.1 s to /dev/null, 0.95 s to null:), which measures nbdcopy, not the
server.
Once per run, before the rounds, one more image goes through the same steps and its cold
read at taiwan is copied into a file and compared with the original (cmp), and so is one
read through the peer's link; a mismatch stops the run, so a fast wrong answer cannot pass.

Before the rounds, --warmup rounds go the same way and are logged but not counted: the
sites' JVM compiles its hot paths during the first reads (a profile of the first cold read
of a fresh helio up: a third of its CPU in the C2 compiler), which a long-running site has
done long before; nbdkit, in C, needs none.

Goals: ours >= 1.0x the peer's median throughput, and >= 80% of the link's bandwidth.

Options (defaults in brackets):
  --rounds N          rounds, each one read of ours and one of the peer [$ROUNDS]
  --warmup N          rounds before them, not counted [$WARMUP]
  --size SIZE         image and file size, e.g. 16M, 256M, 1G [$SIZE]
  --rtt DURATION      emulated round-trip time, e.g. 75ms [$RTT]
  --bandwidth RATE    emulated bandwidth per direction, e.g. 1gbit, 100mbit [$BANDWIDTH]
  --work DIR          the random file and helio up's data; removed on exit unless
                      --keep-work (the file is kept across runs when --work is kept) [$WORK]
  --out DIR           results: cold-read.csv, cold-read.png, summary.txt, logs/
                      [/var/tmp/geo-results/cold-read-<time>]
  --port-offset N     added to every port of helio up (controller 7400, gRPC 7410/7411,
                      metrics 9410/9411, NBD 10809/10810), to run beside another one [$PORT_OFFSET]
  --no-verify         skip the check of the bytes read (not for published numbers)
  --keep-work         keep --work
  --helio PATH        the helio launcher to test [$HELIO]
  -h, --help          this text

Needs nbdcopy (libnbd-bin), nbdkit, curl, java; installs gnuplot-nox for the PNG when
missing (bin/install-packages). The distribution must be built (see benchmarks/geo/README.md).
CSV columns: round,server,seconds,mb_per_s,percent_of_link,wan_bytes
(MB = 10^6 bytes; wan_bytes: bytes taiwan received from virginia, ours only).
EOF
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --warmup) WARMUP=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --no-verify) VERIFY=0; shift ;;
    --keep-work) KEEP_WORK=1; shift ;;
    --helio) HELIO=$2; shift 2 ;;
    *) echo "cold-read.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive number"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "--warmup must be a number"
SIZE_BYTES=$(size_bytes "$SIZE")
LINK_BYTES=$(rate_bytes "$BANDWIDTH")
DELAY=$(half_duration "$RTT")
require_tools nbdcopy nbdinfo nbdkit curl java cmp
BUILD=$(cd "$(dirname "$HELIO")/.." && pwd)
require_build "$BUILD"
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

FILE=$WORK/image-$SIZE_BYTES.bin
RUN=cr$(date +%H%M%S)   # image names: unique per run, so an old --work never interferes
rm -rf "$WORK/up"
random_file "$FILE" "$SIZE_BYTES"

helio_up up "$WORK/up" "$RTT" "$BANDWIDTH"
WINDOW=$(up_window_bytes up)
[[ -n $WINDOW ]] || die "no window size in helio up's log ($OUT/logs/up.log)"

NBDKIT_PORT=$(free_port)
launch nbdkit nbdkit -f -i 127.0.0.1 -p "$NBDKIT_PORT" file "$FILE"
LINK_PORT=$(free_port)
launch link java -cp "$(cli_classpath "$BUILD")" \
  io.heliotrope.wan.WanProxyMain --listen "127.0.0.1:$LINK_PORT" --target "127.0.0.1:$NBDKIT_PORT" \
  --delay "$DELAY" --bandwidth "$BANDWIDTH" --window "$WINDOW"
wait_for_line link "wan-proxy:" 60
PEER_URI=nbd://127.0.0.1:$LINK_PORT/
log "peer: nbdkit file on $NBDKIT_PORT behind a link on $LINK_PORT ($DELAY one way, $BANDWIDTH, window $WINDOW bytes)"

TAIWAN_METRICS=http://127.0.0.1:$METRICS_T/metrics
received() { metric "$TAIWAN_METRICS" heliotrope_peer_bytes_total 'direction="received"'; }

# Prepare image NAME at virginia: created on-demand, the file written into it, closed.
prepare_ours() {
  local name=$1
  helio image create "$name" --size "$SIZE_BYTES" --mode on-demand --home virginia \
    --controller "$CONTROLLER" >>"$OUT/logs/cli.log" 2>&1 || die "image create $name failed (see $OUT/logs/cli.log)"
  nbdcopy "$FILE" "nbd://127.0.0.1:$NBD_V/$name" 2>>"$OUT/logs/nbdcopy.log" ||
    die "import into $name at virginia failed (see $OUT/logs/nbdcopy.log)"
  wait_closed "$name" "$CLOSE_TIMEOUT" || die "$name did not close at virginia"
}

# time_copy SOURCE_URI: seconds nbdcopy takes to read the whole export (see --help: null:).
time_copy() {
  local t0=$EPOCHREALTIME
  nbdcopy "$1" null: 2>>"$OUT/logs/nbdcopy.log" || die "nbdcopy $1 null: failed (see $OUT/logs/nbdcopy.log)"
  awk -v s="$t0" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", e - s }'
}

record() {  # round server seconds wan_bytes
  local mbps pct
  mbps=$(awk -v b="$SIZE_BYTES" -v s="$3" 'BEGIN { printf "%.1f", b / s / 1e6 }')
  pct=$(awk -v b="$SIZE_BYTES" -v s="$3" -v l="$LINK_BYTES" 'BEGIN { printf "%.1f", 100 * b / s / l }')
  [[ $1 == w* ]] || echo "$1,$2,$3,$mbps,$pct,$4" >>"$OUT/cold-read.csv"
  log "  round $1 $2: $3 s, $mbps MB/s, $pct% of the link${4:+, $4 bytes over the WAN}"
}

run_ours() {
  local round=$1 name=$RUN-r$1 r0 r1 s
  prepare_ours "$name"
  r0=$(received)
  s=$(time_copy "nbd://127.0.0.1:$NBD_T/$name")
  r1=$(received)
  record "$round" heliotrope "$s" "$((r1 - r0))"
  helio image rm "$name" --controller "$CONTROLLER" >>"$OUT/logs/cli.log" 2>&1 || log "image rm $name failed"
}

run_peer() {
  local s
  s=$(time_copy "$PEER_URI")
  record "$1" nbdkit "$s" ""
}

# read_matches URI WHAT: the whole export, copied into a file, equals $FILE byte for byte.
read_matches() {
  local copy=$WORK/verify.bin
  rm -f "$copy"
  nbdcopy "$1" "$copy" 2>>"$OUT/logs/nbdcopy.log" || die "verify: nbdcopy $1 $copy failed"
  cmp -s "$FILE" "$copy" || die "verify: $2 differs from $FILE ($(cmp "$FILE" "$copy" 2>&1 | head -n 1))"
  rm -f "$copy"
}

verify() {
  local name=$RUN-verify
  log "verify: a cold read at taiwan and a read through the peer's link, compared with the file"
  prepare_ours "$name"
  read_matches "nbd://127.0.0.1:$NBD_T/$name" "taiwan's cold read of $name"
  read_matches "$PEER_URI" "the read through the peer's link"
  helio image rm "$name" --controller "$CONTROLLER" >>"$OUT/logs/cli.log" 2>&1 || true
  log "verify: both reads equal the file"
}

echo "round,server,seconds,mb_per_s,percent_of_link,wan_bytes" >"$OUT/cold-read.csv"
VERIFIED=no
if [[ $VERIFY == 1 ]]; then verify; VERIFIED="yes (a cold read at taiwan and a read through the peer's link equal the file, cmp)"; fi
for ((r = 1; r <= WARMUP; r++)); do
  run_ours "w$r"; run_peer "w$r"
done
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then run_ours "$r"; run_peer "$r"; else run_peer "$r"; run_ours "$r"; fi
done

ensure_gnuplot
{
  echo "Cold read after a move, $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "size $SIZE ($SIZE_BYTES bytes), link $RTT RTT / $BANDWIDTH ($LINK_BYTES bytes/s) / window $WINDOW bytes, $ROUNDS round(s) after $WARMUP not counted, data on $(df --output=fstype "$WORK" | tail -n 1) ($WORK)"
  echo "verified: $VERIFIED"
  echo
  python3 "$HERE/geo_report.py" cold-read "$OUT/cold-read.csv" "$LINK_BYTES" "$OUT/cold-read.png"
} | tee "$OUT/summary.txt"
log "results in $OUT (cold-read.csv, cold-read.png, summary.txt, logs/)"
