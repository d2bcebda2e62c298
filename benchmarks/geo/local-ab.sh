#!/usr/bin/env bash
# The local read and write path, the previous build and this one side by side.
# Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

ROUNDS=5
RUNTIME=10
RAMP=1
SUSTAINED=60
WINDOW=10
SIZE=1G
ONLY=.
PREV_COMMIT=e37c0ed
PREV_DIR=/var/tmp/heliotrope-prev
PREV_M2=
MVN_OFFLINE=-o
CONTROLLER_RUN=1
WORK=/var/tmp/geo-local-ab
OUT=/var/tmp/geo-results/local-ab-$(date +%Y%m%d-%H%M%S)
BASE_PORT=10950
PORT_OFFSET=0
KEEP_WORK=0
START_TIMEOUT=180
HELIO=$REPO/bin/helio
EXPORT=bench

JOBS=(
  "randread-4k-qd32|IOPS|--rw=randread --bs=4k --iodepth=32"
  "randwrite-4k-qd32|IOPS|--rw=randwrite --bs=4k --iodepth=32"
  "seqread-1m-qd8|MB/s|--rw=read --bs=1m --iodepth=8"
  "seqwrite-1m-qd8|MB/s|--rw=write --bs=1m --iodepth=8"
)

usage() {
  cat <<EOF
Usage: benchmarks/geo/local-ab.sh [options]

The local read and write path (every block current at the site): the previous build
(--prev-commit) and this one side by side, fio --ioengine=nbd against each, A/B in the
same run, the order rotating every round. Each build runs in its default configuration
with its data on the disk (--work):
  prev     the previous build: 'helio serve --data-dir ... --create-image $EXPORT=SIZE'
           (standalone: no controller), NBD port --base-port
  cur      this build, the same command line, NBD port --base-port + 1
  prev-ctl the previous build with a controller: its 'helio up' (ZooKeeper, controller and
           one site), image '$EXPORT' created with its controller's defaults (proactive),
           NBD port --base-port + 2, controller --base-port + 4 (its second site takes the next NBD port)
  cur-ctl  this build as replication users run it: 'helio up' (controller, virginia and
           taiwan behind the WAN emulator), image '$EXPORT' created with the controller's
           defaults (proactive) homed at virginia, the jobs against virginia, so the image
           is open for write under its lease while they run
           (--no-controller skips prev-ctl and cur-ctl)
Each export is filled once with the same random SIZE file (nbdcopy) before the first job.

Jobs (fio --ioengine=nbd, one connection, --runtime after --ramp, --time_based,
--norandommap; ONLY selects them by a regular expression):
$(for j in "${JOBS[@]}"; do IFS='|' read -r id unit args <<<"$j"; printf '  %-20s %-5s %s\n' "$id" "$unit" "$args"; done)

Then one sustained job per site (--sustained s of 4 KiB random writes at QD32, no ramp,
IOPS logged per second): its mean, its first and last --window s and last/first, the
steady state. With a controller it also runs on 'push' (cur-push): an image of the same
helio up created with --s 0 --transitions virginia:taiwan=1.0, so that every block written
is pushed to taiwan while the job runs; the push rate is virginia's
heliotrope_propagation_pushed_bytes_total over the job.

Reported: the median per build, and per pair (cur/prev, cur-ctl/prev-ctl) the ratio of each
round's two results, as median [min, max] over rounds; > 1: this build is faster.

The previous build lives in --prev-dir: the commit's tree from 'git archive' (no git
worktree, nothing added to the repository's metadata), built with its own Maven repository
(--prev-m2) so that its artifacts never replace this build's; it is reused while
--prev-dir/.heliotrope-commit names the same commit.

Options (defaults in brackets):
  --rounds N           rounds per job [$ROUNDS]
  --runtime S          fio runtime per job, seconds [$RUNTIME]
  --ramp S             fio ramp time, not counted, seconds [$RAMP]
  --sustained S        runtime of the sustained job, seconds; 0 skips it [$SUSTAINED]
  --window S           its first and last windows, seconds [$WINDOW]
  --size SIZE          image size [$SIZE]
  --only REGEX         jobs to run, by name [$ONLY]
  --prev-commit REV    the previous build's commit [$PREV_COMMIT]
  --prev-dir DIR       where it is extracted and built [$PREV_DIR]
  --prev-m2 DIR        its Maven repository [<prev-dir>.m2]; ~/.m2/repository is read too
  --online             let Maven download what it lacks (default: offline, -o)
  --no-controller      skip prev-ctl and cur-ctl
  --work DIR           data of the three sites and the random file; removed on exit
                       unless --keep-work [$WORK]
  --out DIR            results: local-ab.csv, local-ab.png, summary.txt, fio/, logs/
                       [/var/tmp/geo-results/local-ab-<time>]
  --base-port PORT     NBD ports of prev, cur and prev-ctl (PORT, PORT + 1, PORT + 2), and
                       prev-ctl's controller (PORT + 4; PORT + 3 is its second site's NBD port) [$BASE_PORT]
  --port-offset N      added to every port of cur-ctl's helio up (controller 7400, gRPC
                       7410/7411, metrics 9410/9411, NBD 10809/10810) [$PORT_OFFSET]
  --keep-work          keep --work
  --helio PATH         this build's launcher [$HELIO]
  -h, --help           this text

Needs fio with the nbd engine, nbdcopy and nbdinfo (libnbd-bin); gnuplot-nox for the PNG.
CSV columns: job,unit,build,round,value.
EOF
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --runtime) RUNTIME=$2; shift 2 ;;
    --ramp) RAMP=$2; shift 2 ;;
    --sustained) SUSTAINED=$2; shift 2 ;;
    --window) WINDOW=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --prev-commit) PREV_COMMIT=$2; shift 2 ;;
    --prev-dir) PREV_DIR=$2; shift 2 ;;
    --prev-m2) PREV_M2=$2; shift 2 ;;
    --online) MVN_OFFLINE=; shift ;;
    --no-controller) CONTROLLER_RUN=0; shift ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --base-port) BASE_PORT=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --keep-work) KEEP_WORK=1; shift ;;
    --helio) HELIO=$2; shift 2 ;;
    *) echo "local-ab.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive number"
SIZE_BYTES=$(size_bytes "$SIZE")
PREV_M2=${PREV_M2:-$PREV_DIR.m2}
require_tools fio nbdcopy nbdinfo java
fio --enghelp=nbd >/dev/null 2>&1 || die "this fio lacks the nbd engine"
BUILD=$(cd "$(dirname "$HELIO")/.." && pwd)
require_build "$BUILD"
set_up_ports "$PORT_OFFSET"

# The previous build: extracted from git and built once, then reused.
build_prev() {
  local want stamp=$PREV_DIR/.heliotrope-commit
  want=$(git -C "$REPO" rev-parse --verify "$PREV_COMMIT^{commit}") || die "no commit $PREV_COMMIT in $REPO"
  if [[ -d $PREV_DIR && $(cat "$stamp" 2>/dev/null) != "$want" ]]; then
    [[ -z $(ls -A "$PREV_DIR") ]] ||
      die "$PREV_DIR holds something other than $PREV_COMMIT ($stamp: $(cat "$stamp" 2>/dev/null || echo none)); remove it or pick --prev-dir"
  fi
  if [[ ! -f $stamp ]]; then
    log "prev: extracting $PREV_COMMIT ($want) into $PREV_DIR"
    mkdir -p "$PREV_DIR"
    git -C "$REPO" archive "$want" | tar -x -C "$PREV_DIR"
    echo "$want" >"$stamp"
  fi
  if ! compgen -G "$PREV_DIR/cli/target/heliotrope-cli-*.jar" >/dev/null || [[ ! -d $PREV_DIR/cli/target/lib ]]; then
    log "prev: building in $PREV_DIR with Maven repository $PREV_M2 (log: $OUT/logs/prev-build.log)"
    (cd "$PREV_DIR" && ./mvnw -B -q $MVN_OFFLINE -Dmaven.repo.local="$PREV_M2" \
        -Dmaven.repo.local.tail="$HOME/.m2/repository" -pl cli -am install -DskipTests) \
      >"$OUT/logs/prev-build.log" 2>&1 || die "building $PREV_COMMIT failed (see $OUT/logs/prev-build.log)"
  fi
}

CREATED_WORK=
[[ -d $WORK ]] || CREATED_WORK=1
mkdir -p "$WORK" "$OUT/logs" "$OUT/fio"
cleanup() {
  stop_all
  if [[ $KEEP_WORK != 1 ]]; then
    rm -rf "$WORK/prev" "$WORK/cur" "$WORK/prev-up" "$WORK/up"
    [[ -n $CREATED_WORK ]] && rm -rf "$WORK"
  fi
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_prev
FILE=$WORK/image-$SIZE_BYTES.bin
random_file "$FILE" "$SIZE_BYTES"
rm -rf "$WORK/prev" "$WORK/cur" "$WORK/prev-up" "$WORK/up"

declare -A URI=()
BUILDS=()

# wait_export NAME URI: until the export answers with the right size.
wait_export() {
  local deadline=$((SECONDS + START_TIMEOUT)) size
  while ((SECONDS < deadline)); do
    alive "${PID[$1]}" || { log "$1 exited; last lines:"; tail -n 20 "$OUT/logs/$1.log" >&2; return 1; }
    if size=$(timeout 5 nbdinfo --size "$2" 2>/dev/null); then
      [[ $size == "$SIZE_BYTES" ]] && return 0
      die "$1: export size $size, expected $SIZE_BYTES"
    fi
    sleep 0.2
  done
  die "$1: $2 does not answer after $START_TIMEOUT s"
}

# serve NAME LAUNCHER PORT: a standalone site of that build, on the disk.
serve() {
  local name=$1 launcher=$2 port=$3
  require_ports "$port"
  log "$name: $launcher serve, data in $WORK/$name, NBD $port"
  launch "$name" "$launcher" serve --data-dir "$WORK/$name" --nbd-port "$port" --grpc-port 0 \
    --metrics-port 0 --create-image "$EXPORT=$SIZE_BYTES"
  URI[$name]=nbd://127.0.0.1:$port/$EXPORT
  wait_export "$name" "${URI[$name]}"
}

serve prev "$PREV_DIR/bin/helio" "$BASE_PORT"
serve cur "$HELIO" "$((BASE_PORT + 1))"
BUILDS=(prev cur)
if [[ $CONTROLLER_RUN == 1 ]]; then
  port=$((BASE_PORT + 2)) prev_controller=127.0.0.1:$((BASE_PORT + 4))
  require_ports "$port" "$((BASE_PORT + 4))"
  log "prev-ctl: $PREV_DIR/bin/helio up, data in $WORK/prev-up, NBD $port"
  launch prev-ctl "$PREV_DIR/bin/helio" up --data-dir "$WORK/prev-up" --nbd-port "$port" --grpc-port 0 \
    --metrics-port 0 --controller-port "$((BASE_PORT + 4))" --demo-size 4M
  wait_for_line prev-ctl "Press Ctrl-C to stop." "$START_TIMEOUT"
  "$PREV_DIR/bin/helio" image create "$EXPORT" --size "$SIZE_BYTES" --controller "$prev_controller" \
    >>"$OUT/logs/cli.log" 2>&1 || die "prev-ctl: image create at its controller failed (see $OUT/logs/cli.log)"
  URI[prev-ctl]=nbd://127.0.0.1:$port/$EXPORT
  wait_export prev-ctl "${URI[prev-ctl]}"
  BUILDS+=(prev-ctl)
  helio_up cur-ctl "$WORK/up" 75ms 1gbit
  helio image create "$EXPORT" --size "$SIZE_BYTES" --home virginia --controller "$CONTROLLER" \
    >>"$OUT/logs/cli.log" 2>&1 || die "image create at the controller failed (see $OUT/logs/cli.log)"
  URI[cur-ctl]=nbd://127.0.0.1:$NBD_V/$EXPORT
  wait_export cur-ctl "${URI[cur-ctl]}"
  BUILDS+=(cur-ctl)
  if ((SUSTAINED > 0)); then
    helio image create push --size "$SIZE_BYTES" --home virginia --s 0 --transitions virginia:taiwan=1.0 \
      --controller "$CONTROLLER" >>"$OUT/logs/cli.log" 2>&1 || die "image create push failed (see $OUT/logs/cli.log)"
    URI[cur-push]=nbd://127.0.0.1:$NBD_V/push
  fi
fi
FILLED=("${BUILDS[@]}")
[[ -n ${URI[cur-push]:-} ]] && FILLED+=(cur-push)
for name in "${FILLED[@]}"; do
  log "$name: writing the image with nbdcopy"
  nbdcopy "$FILE" "${URI[$name]}" 2>>"$OUT/logs/nbdcopy.log" || die "$name: nbdcopy failed (see $OUT/logs/nbdcopy.log)"
done
if [[ $CONTROLLER_RUN == 1 ]]; then
  wait_closed "$EXPORT" 60 || true
  [[ -n ${URI[cur-push]:-} ]] && { wait_closed push 120 || true; }
  helio image show "$EXPORT" --controller "$CONTROLLER" >>"$OUT/logs/cli.log" 2>&1 || true
fi

echo "job,unit,build,round,value" >"$OUT/local-ab.csv"

# run_job ID UNIT ARGS BUILD ROUND
run_job() {
  local id=$1 unit=$2 args=$3 name=$4 round=$5 json m=() rc=0
  json=$OUT/fio/$id.$name.r$round.json
  # shellcheck disable=SC2086  # $args is a deliberate word list
  fio --name="$id" --ioengine=nbd --uri="${URI[$name]}" $args --numjobs=1 --group_reporting \
    --norandommap --time_based --runtime="$RUNTIME" --ramp_time="$RAMP" \
    --output-format=json --output="$json" >>"$OUT/logs/fio.log" 2>&1 || rc=$?
  # shellcheck disable=SC2207  # report.py prints numbers separated by spaces
  if ((rc == 0)); then m=($(python3 "$REPO/benchmarks/nbd/report.py" fio "$json" 2>>"$OUT/logs/fio.log")) || true; fi
  if ((rc != 0 || ${#m[@]} != 5)); then log "  $name: fio $id failed (see $OUT/logs/fio.log)"; return 0; fi
  local v=${m[0]}
  [[ $unit == MB/s ]] && v=${m[1]}
  echo "$id,$unit,$name,$round,$v" >>"$OUT/local-ab.csv"
  log "  $id r$round $name: $v $unit"
}

n=${#BUILDS[@]}
jobs_run=0
for job in "${JOBS[@]}"; do
  IFS='|' read -r id unit args <<<"$job"
  [[ $id =~ $ONLY ]] || continue
  log "job $id"
  jobs_run=$((jobs_run + 1))
  for ((r = 1; r <= ROUNDS; r++)); do
    for ((k = 0; k < n; k++)); do
      run_job "$id" "$unit" "$args" "${BUILDS[(r - 1 + k) % n]}" "$r"
    done
  done
done
((jobs_run)) || die "no job matches --only '$ONLY'"

# The sustained job: the steady state of each site's write path.
if ((SUSTAINED > 0)); then
  echo "build,mean_iops,first_iops,last_iops,last_over_first,pushed_mb_per_s" >"$OUT/sustained.csv"
  for name in "${FILLED[@]}"; do
    id=sustained-randwrite-4k-qd32 json=$OUT/fio/sustained.$name.json pushed0=0 pushed=
    log "$id $name: ${SUSTAINED}s"
    [[ $name == cur-push ]] && pushed0=$(metric "http://127.0.0.1:$METRICS_V/metrics" heliotrope_propagation_pushed_bytes_total)
    start=$SECONDS
    if ! fio --name="$id" --ioengine=nbd --uri="${URI[$name]}" --rw=randwrite --bs=4k --iodepth=32 --numjobs=1 \
        --norandommap --time_based --runtime="$SUSTAINED" --write_iops_log="$OUT/fio/sustained.$name" --log_avg_msec=1000 \
        --output-format=json --output="$json" >>"$OUT/logs/fio.log" 2>&1; then
      log "  $name: fio $id failed (see $OUT/logs/fio.log)"; continue
    fi
    if [[ $name == cur-push ]]; then
      pushed=$(python3 -c "import sys; print(f'{(int(sys.argv[2]) - int(sys.argv[1])) / 1e6 / max(1, int(sys.argv[3])):.1f}')" \
        "$pushed0" "$(metric "http://127.0.0.1:$METRICS_V/metrics" heliotrope_propagation_pushed_bytes_total)" "$((SECONDS - start))")
    fi
    # shellcheck disable=SC2207  # report.py prints numbers separated by spaces
    m=($(python3 "$REPO/benchmarks/nbd/report.py" fio "$json" 2>>"$OUT/logs/fio.log")) || true
    # shellcheck disable=SC2207
    w=($(python3 "$REPO/benchmarks/nbd/report.py" iopslog "$OUT/fio/sustained.${name}_iops.1.log" "$WINDOW" 2>>"$OUT/logs/fio.log")) || true
    if ((${#m[@]} != 5 || ${#w[@]} != 3)); then log "  $name: no result for $id (see $OUT/logs/fio.log)"; continue; fi
    echo "$name,${m[0]},${w[0]},${w[1]},${w[2]},$pushed" >>"$OUT/sustained.csv"
    log "  $name: ${m[0]} IOPS, first ${WINDOW}s ${w[0]}, last ${w[1]} (${w[2]})${pushed:+, pushed $pushed MB/s}"
  done
fi

ensure_gnuplot
{
  echo "Local path A/B, $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "previous: $PREV_COMMIT ($(git -C "$REPO" log -1 --format='%s' "$PREV_COMMIT" | cut -c1-80))"
  echo "this:     $(git -C "$BUILD" log -1 --format='%h %s' 2>/dev/null | cut -c1-80)$([[ -n $(git -C "$BUILD" status --porcelain --untracked-files=no 2>/dev/null) ]] && echo ' (+ uncommitted changes)')"
  echo "size $SIZE, $ROUNDS round(s), fio ${RUNTIME}s after ${RAMP}s ramp, data on $(df --output=fstype "$WORK" | tail -n 1) ($WORK); runs: ${BUILDS[*]}"
  echo
  python3 "$HERE/geo_report.py" local-ab "$OUT/local-ab.csv" "$OUT/local-ab.png"
  if [[ -f $OUT/sustained.csv ]]; then
    echo
    python3 "$HERE/geo_report.py" sustained "$OUT/sustained.csv" "$SUSTAINED" "$WINDOW"
  fi
} | tee "$OUT/summary.txt"
log "results in $OUT (local-ab.csv, local-ab.png, summary.txt, fio/, logs/)"
