#!/usr/bin/env bash
# helio image import against nbdcopy of the same file into an image of the same site,
# side by side. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

ROUNDS=5
SIZE=1G
MODES="up serve"
WORK=/var/tmp/xfer-bench
OUT=/var/tmp/xfer-results/import-$(date +%Y%m%d-%H%M%S)
PORT_OFFSET=1000
KEEP_WORK=0
VERIFY=1
NBDCOPY_FLAGS=()
START_TIMEOUT=180
CLOSE_TIMEOUT=60
HELIO=$REPO/bin/helio

usage() {
  cat <<EOF
Usage: benchmarks/xfer/import.sh [options]

Times 'helio image import FILE NAME' against 'nbdcopy FILE nbd://HOST:PORT/NAME' into
an image of the same size at the same site, created beforehand and not timed (the
comparison of issue 15). Two files of --size under --work (on the disk, not /dev/shm):
  random     random bytes throughout
  half-zero  1 MiB of random bytes, then 1 MiB of zeros, and so on
Two setups (--modes), each in its default configuration, on ports moved by --port-offset:
  up         'helio up' (controller and the sites virginia and taiwan); the import goes
             through --controller and --site virginia, nbdcopy to virginia's NBD port
  serve      a standalone 'helio serve'; the import goes through --server
Each round runs the import and nbdcopy of each file, in alternating order (the import
first in odd rounds, nbdcopy first in even ones); every image is removed right after its
copy (waiting for its write lease to be released), so each copy starts from the same state.
The import's time is the whole command: JVM start, creating the image, the copy, its
FLUSH. nbdcopy runs with its defaults (4 connections when the server advertises
multi-conn, 64 requests of 256 KiB each; zero blocks of the source as WRITE_ZEROES; no
FLUSH), or with --flush too under --nbdcopy-flush: a FLUSH at the end, as the import
does, so that both report a copy that is on the disk. Each round also imports a 4 KiB file: the command's cost besides the copy.
Once per setup, before the rounds, an imported image is read back with nbdcopy and
compared with its file (cmp); a mismatch stops the run.

Goal: import >= 1.0x nbdcopy, as the ratio of their median times.

Options (defaults in brackets):
  --rounds N          rounds [$ROUNDS]
  --size SIZE         size of each file, e.g. 256M, 1G [$SIZE]
  --modes LIST        setups to run, of: up serve [$MODES]
  --work DIR          the files and the sites' data; removed on exit unless --keep-work
                      (the files are reused while they have the right size) [$WORK]
  --out DIR           results: import.csv, summary.txt, logs/ [/var/tmp/xfer-results/import-<time>]
  --port-offset N     added to every default port (controller 7400, status page 7480, gRPC
                      7410/7411, metrics 9410/9411, NBD 10809/10810) [$PORT_OFFSET]
  --nbdcopy-flush     run nbdcopy with --flush (the like-for-like comparison: the import flushes)
  --no-verify         skip the read-back check (not for published numbers)
  --keep-work         keep --work
  --helio PATH        the helio launcher to test [$HELIO]
  -h, --help          this text

Needs nbdcopy (libnbd-bin), java, cmp, python3. The distribution must be built
(./mvnw -B -q -pl cli -am install -DskipTests).
CSV columns: mode,file,round,tool,seconds,mb_per_s,site_cpu_s,load1 (MB = 10^6 bytes;
site_cpu_s: CPU seconds the setup's process used during the copy, utime + stime from
/proc/PID/stat, with helio up's controller and second site in it; load1: the 1-minute
load average when the copy ended).
EOF
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --modes) MODES=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --nbdcopy-flush) NBDCOPY_FLAGS=(--flush); shift ;;
    --no-verify) VERIFY=0; shift ;;
    --keep-work) KEEP_WORK=1; shift ;;
    --helio) HELIO=$2; shift 2 ;;
    *) echo "import.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=SCRIPTDIR/../geo/lib.sh
source "$HERE/../geo/lib.sh"

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive number"
SIZE_BYTES=$(size_bytes "$SIZE")
CLK_TCK=$(getconf CLK_TCK)
require_tools nbdcopy nbdinfo java cmp python3
BUILD=$(cd "$(dirname "$HELIO")/.." && pwd)
require_build "$BUILD"
set_up_ports "$PORT_OFFSET"
STATUS_PORT=$((7480 + PORT_OFFSET))

CREATED_WORK=
[[ -d $WORK ]] || CREATED_WORK=1
mkdir -p "$WORK" "$OUT/logs"
cleanup() {
  stop_all
  if [[ $KEEP_WORK != 1 ]]; then
    rm -rf "$WORK/up" "$WORK/serve"
    [[ -n $CREATED_WORK ]] && rm -rf "$WORK"
  fi
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

RUN=x$(date +%H%M%S)   # image names: unique per run
echo "mode,file,round,tool,seconds,mb_per_s,site_cpu_s,load1" >"$OUT/import.csv"

# half_zero_file PATH BYTES: 1 MiB of random bytes, then 1 MiB of zeros, ..., reused while it has the right size.
half_zero_file() {
  [[ $(stat -c %s "$1" 2>/dev/null) == "$2" ]] && return 0
  log "writing $1 ($2 bytes, half of them zeros)"
  python3 - "$1.tmp" "$2" <<'PY'
import os, sys
path, size, mib = sys.argv[1], int(sys.argv[2]), 1 << 20
with open(path, "wb") as f:
    for at in range(0, size, 2 * mib):
        f.write(os.urandom(min(mib, size - at)))
        if size - at > mib:
            f.write(bytes(min(mib, size - at - mib)))
PY
  mv "$1.tmp" "$1"
}

declare -A FILES=([random]=$WORK/random-$SIZE_BYTES.bin [half-zero]=$WORK/half-zero-$SIZE_BYTES.bin [4k]=$WORK/4k.bin)
random_file "${FILES[random]}" "$SIZE_BYTES"
half_zero_file "${FILES[half-zero]}" "$SIZE_BYTES"
random_file "${FILES[4k]}" 4096

# Where the commands of the current setup go: TARGET (helio flags), SITE_FLAGS (import only), NBD (port).
TARGET=() SITE_FLAGS=() NBD=

start_up() {
  local status=()
  "$HELIO" up --help | grep -q -- --status-port && status=(--status-port "$STATUS_PORT")
  require_ports "$CONTROLLER_PORT" "$GRPC_V" "$GRPC_T" "$METRICS_V" "$METRICS_T" "$NBD_V" "$NBD_T"
  rm -rf "$WORK/up"
  log "up: helio up, data in $WORK/up"
  launch up "$HELIO" up --data-dir "$WORK/up" --controller-port "$CONTROLLER_PORT" --grpc-port "$GRPC_V" \
    --metrics-port "$METRICS_V" --nbd-port "$NBD_V" "${status[@]}"
  wait_served up "nbd://127.0.0.1:$NBD_V/demo" || die "helio up did not serve at virginia"
  wait_served up "nbd://127.0.0.1:$NBD_T/demo" || die "helio up did not serve at taiwan"
  TARGET=(--controller "$CONTROLLER") SITE_FLAGS=(--site virginia) NBD=$NBD_V
}

start_serve() {
  require_ports "$GRPC_V" "$METRICS_V" "$NBD_V"
  rm -rf "$WORK/serve"
  log "serve: helio serve, data in $WORK/serve"
  launch serve "$HELIO" serve --data-dir "$WORK/serve" --grpc-port "$GRPC_V" --metrics-port "$METRICS_V" \
    --nbd-port "$NBD_V" --create-image "ready=4096"
  wait_served serve "nbd://127.0.0.1:$NBD_V/ready" || die "helio serve did not serve"
  TARGET=(--server "127.0.0.1:$GRPC_V") SITE_FLAGS=() NBD=$NBD_V
}

# wait_served NAME URI: until the NBD export answers (bounded); fails when NAME exits first.
wait_served() {
  local deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    timeout 10 nbdinfo --size "$2" >/dev/null 2>&1 && return 0
    alive "${PID[$1]}" || { log "$1 exited; last lines of $OUT/logs/$1.log:"; tail -n 20 "$OUT/logs/$1.log" >&2; return 1; }
    sleep 0.5
  done
  log "$2 not served after $START_TIMEOUT s"
  return 1
}

cli() { "$HELIO" image "$@" "${TARGET[@]}" >>"$OUT/logs/cli.log" 2>&1; }

# remove NAME: helio image rm, retried while the site still holds the image (its session
# ends, and with a controller its lease goes, after the last connection is gone).
remove() {
  local deadline=$((SECONDS + CLOSE_TIMEOUT))
  until cli rm "$1"; do
    ((SECONDS < deadline)) || die "image rm $1 still refused after $CLOSE_TIMEOUT s (see $OUT/logs/cli.log)"
    sleep 0.25
  done
}

seconds_since() { awk -v s="$1" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", e - s }'; }

# CPU clock ticks the setup's process has used (utime + stime).
site_ticks() { awk '{ print $14 + $15 }' "/proc/${PID[$1]}/stat"; }

record() {  # mode file round tool seconds ticks_before
  local mbps load1 bytes cpu
  bytes=$(stat -c %s "${FILES[$2]}")
  mbps=$(awk -v b="$bytes" -v s="$5" 'BEGIN { printf "%.1f", b / s / 1e6 }')
  cpu=$(awk -v t0="$6" -v t1="$(site_ticks "$1")" -v hz="$CLK_TCK" 'BEGIN { printf "%.2f", (t1 - t0) / hz }')
  load1=$(cut -d' ' -f1 /proc/loadavg)
  echo "$1,$2,$3,$4,$5,$mbps,$cpu,$load1" >>"$OUT/import.csv"
  log "  $1 $2 round $3 $4: $5 s, $mbps MB/s, site $cpu s of CPU (load $load1)"
}

run_import() {  # mode file round
  local name=$RUN-$1-$2-$3-i t0 c0 s
  c0=$(site_ticks "$1")
  t0=$EPOCHREALTIME
  cli import "${FILES[$2]}" "$name" "${SITE_FLAGS[@]}" --no-progress || die "import of $2 failed (see $OUT/logs/cli.log)"
  s=$(seconds_since "$t0")
  record "$1" "$2" "$3" import "$s" "$c0"
  remove "$name"
}

run_nbdcopy() {  # mode file round
  local name=$RUN-$1-$2-$3-n t0 c0 s
  cli create "$name" --size "$SIZE_BYTES" || die "image create $name failed (see $OUT/logs/cli.log)"
  c0=$(site_ticks "$1")
  t0=$EPOCHREALTIME
  nbdcopy "${NBDCOPY_FLAGS[@]}" "${FILES[$2]}" "nbd://127.0.0.1:$NBD/$name" 2>>"$OUT/logs/nbdcopy.log" || die "nbdcopy of $2 failed (see $OUT/logs/nbdcopy.log)"
  s=$(seconds_since "$t0")
  record "$1" "$2" "$3" nbdcopy "$s" "$c0"
  remove "$name"
}

# An import read back whole and compared with its file.
verify() {
  local name=$RUN-$1-verify copy=$WORK/verify.bin
  cli import "${FILES[half-zero]}" "$name" "${SITE_FLAGS[@]}" --no-progress || die "verify: import failed (see $OUT/logs/cli.log)"
  rm -f "$copy"
  nbdcopy "nbd://127.0.0.1:$NBD/$name" "$copy" 2>>"$OUT/logs/nbdcopy.log" || die "verify: nbdcopy of $name failed"
  cmp -s "${FILES[half-zero]}" "$copy" || die "verify: $name differs from ${FILES[half-zero]}"
  rm -f "$copy"
  remove "$name"
  log "$1: verified (an import read back equals its file)"
}

for mode in $MODES; do
  case $mode in
    up) start_up ;;
    serve) start_serve ;;
    *) die "unknown mode '$mode' (known: up serve)" ;;
  esac
  ((VERIFY)) && verify "$mode"
  for ((round = 1; round <= ROUNDS; round++)); do
    for file in random half-zero; do
      if ((round % 2)); then
        run_import "$mode" "$file" "$round"; run_nbdcopy "$mode" "$file" "$round"
      else
        run_nbdcopy "$mode" "$file" "$round"; run_import "$mode" "$file" "$round"
      fi
    done
    run_import "$mode" 4k "$round"
  done
  stop "$mode"
done

{
  echo "helio image import vs nbdcopy ${NBDCOPY_FLAGS[*]}, $(date -Is) on $(hostname), $(nproc) cores; size $SIZE, $ROUNDS rounds"
  echo "work=$WORK ($(df --output=fstype "$WORK" | tail -n 1)); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  python3 "$HERE/report.py" "$OUT/import.csv"
} | tee "$OUT/summary.txt"
log "results in $OUT (import.csv, summary.txt, logs/)"
