#!/usr/bin/env bash
# Side-by-side NBD server benchmark: Heliotrope vs nbd-server, qemu-nbd and nbdkit.
# Run with --help for the knobs.
set -uo pipefail   # no -e: one failing server or job must not abort the whole run

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

ALL_SERVERS="nbdkit-memory nbdkit-file nbd-server qemu-nbd helio-rocksdb helio-memory"
SERVERS=${SERVERS:-$ALL_SERVERS}
ROUNDS=${ROUNDS:-2}
RUNTIME=${RUNTIME:-5}
RAMP=${RAMP:-1}
PRECONDITION=${PRECONDITION:-2}
SIZE=${SIZE:-1G}
WORK=${WORK:-/dev/shm/nbd-compare}
OUT=${OUT:-/tmp/nbd-compare-$(date +%Y%m%d-%H%M%S)}
BASE_PORT=${BASE_PORT:-10900}
START_TIMEOUT=${START_TIMEOUT:-120}
QEMU_CACHE=${QEMU_CACHE:-writeback}   # cache=none needs O_DIRECT, which tmpfs lacks
NBD_SERVER_CACHE=${NBD_SERVER_CACHE:-$HOME/.cache/heliotrope-bench/nbd-server}
# Single quotes on purpose: $PORT/$WORK/$SIZE are expanded when the command is launched.
HELIO_ROCKSDB_CMD=${HELIO_ROCKSDB_CMD:-'exec bin/helio serve --store rocksdb --data-dir $WORK/helio-rocks --nbd-port $PORT --grpc-port 0 --metrics-port 0 --create-image $EXPORT=$SIZE'}
HELIO_MEMORY_CMD=${HELIO_MEMORY_CMD:-'exec bin/helio serve --store memory --nbd-port $PORT --grpc-port 0 --metrics-port 0 --create-image $EXPORT=$SIZE'}
HELIO_ARGS=${HELIO_ARGS:-}
ONLY=${ONLY:-.}
EXPORT=bench

usage() {
  cat <<EOF
Usage: benchmarks/nbd/compare.sh [--help]

Starts several NBD servers on 127.0.0.1 (one port each), writes the same random
$SIZE image over NBD into every export PRECONDITION times, runs each job against
every server round-robin (A/B/A/B, ROUNDS times) and prints the per-server median
plus ours/peer ratios.

Preconditioning follows SNIA's Solid State Storage Performance Test Specification
(workload-independent preconditioning: the whole capacity written twice): a server
that writes out of place, as ours does (two slots per block, the one not in the
index takes the next write), allocates its second slots on the second pass, not in
the first timed random-write job. Servers that write in place just write twice.

Jobs (fio --ioengine=nbd; "2x16" = numjobs=2, i.e. two NBD connections, QD16 each):
  4k randread QD32, 4k randwrite QD32, 4k randread 2x16, 4k randwrite 2x16,
  4k randread QD1 (mean and p99 latency), 1M seq read QD8, 1M seq write QD8,
  nbdcopy of the whole export to null: (nbdcopy's default connections).

Servers (SERVERS, space separated; missing binaries are skipped with a note):
  nbdkit-memory   nbdkit memory plugin (peer of helio-memory)
  nbdkit-file     nbdkit file plugin on a file in \$WORK
  nbd-server      reference nbd-server (PATH, NBD_SERVER_BIN, or fetched with
                  'apt-get download nbd-server' into \$NBD_SERVER_CACHE)
  qemu-nbd        qemu-nbd -f raw --cache=\$QEMU_CACHE --aio=threads on a file in \$WORK
  helio-rocksdb   \$HELIO_ROCKSDB_CMD
  helio-memory    \$HELIO_MEMORY_CMD

Environment (defaults in brackets):
  SERVERS            servers to run [$ALL_SERVERS]
  ROUNDS             rounds per job; the table shows the median [2]
  ONLY               a regular expression: only the jobs whose names match run,
                     e.g. 'randwrite' or '^seq' [.]
  RUNTIME, RAMP      fio runtime and ramp time per job, seconds [5, 1]
  PRECONDITION       passes of nbdcopy writing the whole image into each export
                     before the first job; 0 leaves every export empty [2]
  SIZE               export size [1G]
  WORK               images and server state, removed on exit unless KEEP_WORK=1
                     [/dev/shm/nbd-compare]
  OUT                results: results.csv (every round), summary.txt, logs/
                     [/tmp/nbd-compare-<timestamp>]
  BASE_PORT          first TCP port; servers use consecutive ports [10900]
  START_TIMEOUT      seconds to wait for a server to accept connections [120]
  QEMU_CACHE         qemu-nbd cache mode [writeback]
  NBD_SERVER_BIN     path to nbd-server, overrides the lookup
  HELIO_ARGS         flags added to both of our servers' commands, e.g. '--nbd-poll 0s'
                     to have their event loops sleep at once, as the peers' threads do []
  HELIO_ROCKSDB_CMD, HELIO_MEMORY_CMD
                     commands that run our server in the foreground, serving export
                     '$EXPORT' of \$SIZE on port \$PORT; run with 'bash -c' from the repo
                     root with PORT, WORK, SIZE, EXPORT exported. Defaults:
                     '$HELIO_ROCKSDB_CMD'
                     '$HELIO_MEMORY_CMD'
EOF
}
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
SIZE_BYTES=$(numfmt --from=iec "$SIZE") || exit 1
export PORT WORK SIZE EXPORT

declare -A PID=()        # server name -> process (group) id
declare -A URI=()        # server name -> nbd URI
declare -A MULTI=()      # server name -> multi-conn advertised (nbdcopy uses 4 conns if so)
RUNNING=()               # servers that started and were filled, in launch order

alive() { [[ -n $1 && -n $(ps -o stat= -p "$1" 2>/dev/null | grep -v Z) ]]; }

# Launch "$@" in its own session so the whole process group can be stopped later.
launch() {
  local name=$1; shift
  setsid "$@" </dev/null >"$OUT/logs/$name.log" 2>&1 &
  PID[$name]=$!
}

stop_server() {
  local name=$1 pid=${PID[$1]:-} i
  [[ -n $pid ]] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 50; i++)); do alive "$pid" || break; sleep 0.2; done
  kill -KILL -- "-$pid" 2>/dev/null
  unset "PID[$name]"
}

cleanup() {
  local name
  for name in "${!PID[@]}"; do stop_server "$name"; done
  if [[ ${KEEP_WORK:-0} != 1 && -n ${CREATED_WORK:-} ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Bounded wait until the server answers an NBD handshake with the right size.
wait_ready() {
  local name=$1 uri=${URI[$1]} deadline=$((SECONDS + START_TIMEOUT)) size
  while ((SECONDS < deadline)); do
    if ! alive "${PID[$name]}"; then
      log "$name: exited during startup; last log lines:"; tail -n 15 "$OUT/logs/$name.log" >&2
      return 1
    fi
    if size=$(timeout 5 nbdinfo --size "$uri" 2>/dev/null); then
      [[ $size == "$SIZE_BYTES" ]] && return 0
      log "$name: export size is $size, expected $SIZE_BYTES"; return 1
    fi
    sleep 0.2
  done
  log "$name: not accepting connections after ${START_TIMEOUT}s"; return 1
}

# nbd-server: PATH, NBD_SERVER_BIN, a previous extraction, else extract the Debian package
# (its maintainer scripts fail in containers without systemd, so no dpkg -i).
find_nbd_server() {
  local c
  for c in "${NBD_SERVER_BIN:-}" "$(command -v nbd-server)" /usr/sbin/nbd-server \
           /bin/nbd-server "$NBD_SERVER_CACHE/bin/nbd-server"; do
    [[ -n $c && -x $c ]] && { echo "$c"; return 0; }
  done
  command -v apt-get >/dev/null || return 1
  log "nbd-server not installed; extracting the Debian package into $NBD_SERVER_CACHE"
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download nbd-server >/dev/null 2>&1 && mkdir -p "$NBD_SERVER_CACHE" &&
     dpkg-deb -x nbd-server_*.deb "$NBD_SERVER_CACHE") || { rm -rf "$tmp"; return 1; }
  rm -rf "$tmp"
  [[ -x $NBD_SERVER_CACHE/bin/nbd-server ]] && echo "$NBD_SERVER_CACHE/bin/nbd-server"
}

# The file a file-backed peer serves: empty, the size of the image; the preconditioning
# passes write the image into it over NBD, as into every other export.
empty_image() { rm -f "$1" && truncate -s "$SIZE_BYTES" "$1"; }

# Start one server on $PORT, wait for it and fill its export. Returns non-zero to skip it.
start_server() {
  local name=$1 img="$WORK/$1.img" bin cmd i
  URI[$name]="nbd://127.0.0.1:$PORT/$EXPORT"
  case $name in
    nbdkit-memory)
      command -v nbdkit >/dev/null || { log "skip $name: nbdkit not installed"; return 1; }
      launch "$name" nbdkit -f -i 127.0.0.1 -p "$PORT" -e "$EXPORT" memory size="$SIZE_BYTES" ;;
    nbdkit-file)
      command -v nbdkit >/dev/null || { log "skip $name: nbdkit not installed"; return 1; }
      empty_image "$img" || return 1
      launch "$name" nbdkit -f -i 127.0.0.1 -p "$PORT" -e "$EXPORT" file "$img" ;;
    qemu-nbd)
      command -v qemu-nbd >/dev/null || { log "skip $name: qemu-nbd not installed"; return 1; }
      empty_image "$img" || return 1
      # -e: qemu-nbd serves only ONE client at a time by default; -t: survive disconnects.
      launch "$name" qemu-nbd -f raw -t -e 8 -b 127.0.0.1 -p "$PORT" -x "$EXPORT" \
        --cache="$QEMU_CACHE" --aio=threads "$img" ;;
    nbd-server)
      bin=$(find_nbd_server) || { log "skip $name: nbd-server binary not found"; return 1; }
      empty_image "$img" || return 1
      # Only newstyle exists since 3.10 (oldstyle=true is an error), so it is not set.
      printf '[generic]\nport = %s\nlistenaddr = 127.0.0.1\nallowlist = true\n[%s]\nexportname = %s\n' \
        "$PORT" "$EXPORT" "$img" >"$WORK/nbd-server.conf"
      # It daemonizes (and forks one child per client); -d would serve only ONE
      # connection and exit. Track the daemon through its pid file.
      rm -f "$WORK/nbd-server.pid"
      launch "$name" "$bin" -C "$WORK/nbd-server.conf" -p "$WORK/nbd-server.pid"
      for ((i = 0; i < 100; i++)); do [[ -s $WORK/nbd-server.pid ]] && break; sleep 0.1; done
      [[ -s $WORK/nbd-server.pid ]] || { log "$name: no pid file"; cat "$OUT/logs/$name.log" >&2; return 1; }
      PID[$name]=$(<"$WORK/nbd-server.pid") ;;
    helio-rocksdb|helio-memory)
      [[ $name == helio-rocksdb ]] && cmd=$HELIO_ROCKSDB_CMD || cmd=$HELIO_MEMORY_CMD
      log "$name: $cmd"
      launch "$name" env -C "$REPO" bash -c "$cmd $HELIO_ARGS" ;;
    *) log "unknown server '$name' (known: $ALL_SERVERS)"; return 1 ;;
  esac
  wait_ready "$name" || return 1
  for ((i = 1; i <= PRECONDITION; i++)); do
    log "$name: writing the image with nbdcopy, pass $i of $PRECONDITION"
    nbdcopy "$WORK/base.img" "${URI[$name]}" 2>>"$OUT/logs/$name.log" ||
      { log "$name: nbdcopy pass $i failed (see $OUT/logs/$name.log)"; return 1; }
  done
  MULTI[$name]=$(nbdinfo --can multi-conn "${URI[$name]}" 2>/dev/null && echo yes || echo no)
}

# Job table: id|kind|job arguments. kind: iops, mbps, lat (mean+p99), nbdcopy.
JOBS=(
  "randread-4k-qd32|iops|--rw=randread --bs=4k --iodepth=32 --numjobs=1"
  "randwrite-4k-qd32|iops|--rw=randwrite --bs=4k --iodepth=32 --numjobs=1"
  "randread-4k-2x16|iops|--rw=randread --bs=4k --iodepth=16 --numjobs=2"
  "randwrite-4k-2x16|iops|--rw=randwrite --bs=4k --iodepth=16 --numjobs=2"
  "randread-4k-qd1|lat|--rw=randread --bs=4k --iodepth=1 --numjobs=1"
  "seqread-1m-qd8|mbps|--rw=read --bs=1m --iodepth=8 --numjobs=1"
  "seqwrite-1m-qd8|mbps|--rw=write --bs=1m --iodepth=8 --numjobs=1"
  "nbdcopy-to-null|nbdcopy|"
)

# CPU time counters from /proc/stat: "steal total", in clock ticks.
cpu_ticks() { awk '/^cpu /{t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t}' /proc/stat; }

record() { echo "$1,$2,$3,$4,$5,$6" >>"$OUT/results.csv"; log "  $4 r$5 $1: $6 $3 ($2)"; }

# Run one job against one server; appends rows to results.csv.
run_job() {
  local id=$1 kind=$2 args=$3 name=$4 round=$5 uri=${URI[$4]} json t0 m
  if [[ $kind == nbdcopy ]]; then
    t0=$EPOCHREALTIME
    nbdcopy "$uri" null: 2>>"$OUT/logs/nbdcopy.log" || { log "  $name: nbdcopy failed"; return; }
    record "$id" bandwidth MB/s "$name" "$round" \
      "$(awk -v b="$SIZE_BYTES" -v s="$t0" -v e="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b/(e-s)/1e6}')"
    return
  fi
  json="$OUT/fio/$id.$name.r$round.json"
  # numjobs=N opens N independent NBD connections (one libnbd handle per fio job).
  # shellcheck disable=SC2086  # $args is a deliberate word list
  fio --name="$id" --ioengine=nbd --uri="$uri" $args --group_reporting --norandommap \
      --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" --lat_percentiles=1 \
      --output-format=json --output="$json" >>"$OUT/logs/fio.log" 2>&1 &&
    m=($(python3 "$HERE/report.py" fio "$json" 2>>"$OUT/logs/fio.log")) ||
    { log "  $name: fio $id failed (see $OUT/logs/fio.log)"; return; }
  case $kind in
    iops) record "$id" iops IOPS "$name" "$round" "${m[0]}" ;;
    mbps) record "$id" bandwidth MB/s "$name" "$round" "${m[1]}" ;;
    lat)  record "$id" mean us "$name" "$round" "${m[2]}"
          record "$id" p99 us "$name" "$round" "${m[3]}" ;;
  esac
}

main() {
  local name port=$BASE_PORT job id kind args r
  fio --enghelp=nbd >/dev/null 2>&1 || { echo "fio lacks the nbd engine" >&2; exit 1; }
  command -v nbdcopy >/dev/null && command -v nbdinfo >/dev/null ||
    { echo "need nbdcopy and nbdinfo (libnbd-bin)" >&2; exit 1; }
  [[ -d $WORK ]] || CREATED_WORK=1
  mkdir -p "$WORK" "$OUT/logs" "$OUT/fio"
  echo "job,metric,unit,server,round,value" >"$OUT/results.csv"

  if [[ $(stat -c %s "$WORK/base.img" 2>/dev/null) != "$SIZE_BYTES" ]]; then
    log "creating $WORK/base.img ($SIZE of random data)"
    head -c "$SIZE_BYTES" /dev/urandom >"$WORK/base.img" || exit 1
  fi

  for name in $SERVERS; do
    PORT=$((port++))
    log "starting $name on port $PORT"
    if start_server "$name"; then RUNNING+=("$name"); else stop_server "$name"; fi
  done
  ((${#RUNNING[@]})) || { log "no server could be started"; exit 1; }
  log "running: ${RUNNING[*]}; $ROUNDS round(s) x ${#JOBS[@]} jobs"
  local ticks0 ticks1
  read -ra ticks0 <<<"$(cpu_ticks)"

  for job in "${JOBS[@]}"; do
    IFS='|' read -r id kind args <<<"$job"
    [[ $id =~ $ONLY ]] || continue
    log "job $id"
    for ((r = 1; r <= ROUNDS; r++)); do
      for name in "${RUNNING[@]}"; do run_job "$id" "$kind" "$args" "$name" "$r"; done
    done
  done

  read -ra ticks1 <<<"$(cpu_ticks)"
  {
    echo "NBD comparison $(date -Is) on $(hostname), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
    # Steal: CPU time the hypervisor gave to others while this VM wanted it; above a few
    # percent, absolute numbers drop and rounds scatter, and only the ratios compare.
    awk -v s="$((ticks1[0] - ticks0[0]))" -v t="$((ticks1[1] - ticks0[1]))" \
      'BEGIN { printf "CPU steal during the jobs: %.1f%%\n", (t > 0 ? 100 * s / t : 0) }'
    echo "size=$SIZE rounds=$ROUNDS runtime=${RUNTIME}s ramp=${RAMP}s precondition=${PRECONDITION} passes qemu-nbd cache=$QEMU_CACHE aio=threads${HELIO_ARGS:+ helio args: $HELIO_ARGS}$([[ $ONLY == . ]] || echo " jobs matching: $ONLY")"
    printf 'multi-conn advertised:'; for name in "${RUNNING[@]}"; do printf ' %s=%s' "$name" "${MULTI[$name]}"; done; echo
    echo
    python3 "$HERE/report.py" summary "$OUT/results.csv"
  } | tee "$OUT/summary.txt"
  log "results in $OUT (results.csv, summary.txt, logs/, fio/)"
}

main "$@"
