#!/usr/bin/env bash
# PostgreSQL moved from virginia to taiwan (issue #29): tps at taiwan per second from the
# open, against the tps it had at virginia, with and without the new holder's background
# pull. Run with --help for the knobs. Needs root (loop devices, mounts).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

ROUNDS=3
CASES=1,2
ARMS=
RTT=75ms
DURATION=40
A_DURATION=10
CLIENTS=1
SCALE1=10 SIZE1=1G BANDWIDTH1=1gbit
SCALE2=50 SIZE2=2G BANDWIDTH2=100mbit
READ_REGION=64M
READ_SECONDS=5
INTERVAL=0.2
SETTLE_TIMEOUT=300
WORK=/var/tmp/geo-pg-move
OUT=/var/tmp/geo-results/pg-move-$(date +%Y%m%d-%H%M%S)
PORT_OFFSET=0
KEEP_WORK=0
START_TIMEOUT=180
CLOSE_TIMEOUT=120
ATTACH_TIMEOUT=120
HELIO=${HELIO:-$REPO/bin/helio}

usage() {
  cat <<EOF
Usage: benchmarks/geo/pg-move.sh [options]

PostgreSQL moved between sites (issue #29). Each arm runs on a fresh 'helio up' (controller,
sites virginia and taiwan, every byte between them through the WAN emulator at --rtt and
the case's bandwidth), data under --work:
  1. the image is created with the arm's flags, homed at virginia, and the case's prepared
     file system is written into it at virginia (nbdcopy: an import, the same bytes for
     every arm and round); its lease released;
  2. virginia: nbdfuse, losetup, mount, pg_ctl start, 'pgbench -T <a-duration> -P 1'
     (tps at A), pg_ctl stop, umount, losetup -d, fusermount3 -u; the lease released;
  3. taiwan: t0 = nbdfuse starts (the open); losetup, mount, pg_ctl start (timed),
     'pgbench -T <duration> -P 1 --progress-timestamp -l' (each transaction's end time, so
     tps per second is counted on the t0 axis). pgmove.py samples taiwan's /metrics every
     --interval: heliotrope_pull_{bytes,blocks}_total, heliotrope_pull_elsewhere_blocks,
     heliotrope_pull_lacked_blocks, heliotrope_pull_running,
     heliotrope_peer_fetch_redundant_blocks_total and
     heliotrope_peer_bytes_total{peer="virginia",direction="received"} (WAN bytes);
  4. arms that pull: wait until heliotrope_pull_elsewhere_blocks reads 0 (at most
     --settle-timeout s); the hottest-first arm of case 2 runs the read check: fio
     (--ioengine=nbd, its own connection at taiwan) 4 KiB random reads at QD 8 for
     --read-seconds over a --read-region window of the image (the one holding the most
     data) made local first by reading it once, while the pull still runs and again after
     elsewhere reached 0;
  5. PostgreSQL stopped, the image detached, helio up stopped.

The file system is prepared once per case, without helio: mkfs.ext4 on a loop device over
a sparse file, initdb, 'pgbench -i -s SCALE'; cached in --work/cache (kept with --keep-work).

Cases and arms (a round runs every arm of every case, in this order):
  1  --bandwidth1, pgbench -s --scale1, --size1 image, default mode (proactive)
     default    'helio image create NAME --size SIZE' (pull on by default)
     pull-off   ... --pull off                              (reference)
     goal: tps over the first 10 s of pgbench at taiwan >= 0.8x tps at virginia
     (moonshot 0.95x), arm default
  2  --bandwidth2, pgbench -s --scale2, --size2 image, --mode on-demand (no pushes)
     pull-off   --mode on-demand (pull off by default)
     pull-block --mode on-demand --pull on, helio up --pull-order block
     pull-heat  --mode on-demand --pull on (hottest first, the default order)
     goals: tps over the first 10 s from t0, pull-heat >= 1.5x pull-block; WAN bytes until
     elsewhere reads 0 <= 1.05x the bytes taiwan lacked (heliotrope_pull_lacked_blocks x
     4096); random reads during the pull >= 0.9x after it; redundant fetches 0 in every arm
A build whose CLI has no --pull (image create) or --pull-order (up) runs those arms
without them, and says so in the log and the summary.

Options (defaults in brackets):
  --rounds N          rounds; the summary shows medians [$ROUNDS]
  --cases LIST        cases to run, e.g. 1 or 1,2 [$CASES]
  --arms LIST         only these arms, e.g. default,pull-heat [all]
  --rtt DURATION      emulated round-trip time [$RTT]
  --duration S        pgbench at taiwan, seconds [$DURATION]
  --a-duration S      pgbench at virginia, seconds [$A_DURATION]
  --clients N         pgbench clients (-c) [$CLIENTS]
  --scale1 N, --size1 SIZE, --bandwidth1 RATE
                      case 1's pgbench scale, image size, WAN bandwidth [$SCALE1, $SIZE1, $BANDWIDTH1]
  --scale2 N, --size2 SIZE, --bandwidth2 RATE
                      case 2's [$SCALE2, $SIZE2, $BANDWIDTH2]
  --read-region SIZE  window of the read check [$READ_REGION]
  --read-seconds S    each fio read of the read check [$READ_SECONDS]
  --interval S        metrics sampling interval at taiwan [$INTERVAL]
  --settle-timeout S  longest wait for elsewhere to reach 0 [$SETTLE_TIMEOUT]
  --work DIR          helio up's data, the prepared file systems, mount points; removed on
                      exit unless --keep-work [$WORK]
  --out DIR           results: pg-move-tps.csv, pg-move-runs.csv, pg-move.png, summary.txt,
                      pg-move-arms.csv, raw/, logs/ [/var/tmp/geo-results/pg-move-<time>]
  --port-offset N     added to every port of helio up (controller 7400, gRPC 7410/7411,
                      metrics 9410/9411, NBD 10809/10810), to run beside another one [$PORT_OFFSET]
  --keep-work         keep --work (and so the prepared file systems)
  --helio PATH        the helio launcher to test [\$HELIO or $REPO/bin/helio]
  -h, --help          this text

Needs root, PostgreSQL (/usr/lib/postgresql/*/bin, run as user postgres), nbdfuse and
nbdcopy (libnbd-bin), fio, python3-libnbd, curl, java; installs the missing ones and
gnuplot-nox with bin/install-packages. The distribution must be built (benchmarks/geo/README.md).
EOF
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --cases) CASES=$2; shift 2 ;;
    --arms) ARMS=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --a-duration) A_DURATION=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --scale1) SCALE1=$2; shift 2 ;;
    --size1) SIZE1=$2; shift 2 ;;
    --bandwidth1) BANDWIDTH1=$2; shift 2 ;;
    --scale2) SCALE2=$2; shift 2 ;;
    --size2) SIZE2=$2; shift 2 ;;
    --bandwidth2) BANDWIDTH2=$2; shift 2 ;;
    --read-region) READ_REGION=$2; shift 2 ;;
    --read-seconds) READ_SECONDS=$2; shift 2 ;;
    --interval) INTERVAL=$2; shift 2 ;;
    --settle-timeout) SETTLE_TIMEOUT=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --keep-work) KEEP_WORK=1; shift ;;
    --helio) HELIO=$2; shift 2 ;;
    *) echo "pg-move.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"

positive() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 must be a positive number"; }
positive --rounds "$ROUNDS"
positive --duration "$DURATION"
positive --a-duration "$A_DURATION"
positive --clients "$CLIENTS"
positive --scale1 "$SCALE1"
positive --scale2 "$SCALE2"
positive --read-seconds "$READ_SECONDS"
positive --settle-timeout "$SETTLE_TIMEOUT"
[[ $CASES =~ ^[12](,[12])?$ ]] || die "--cases: 1, 2 or 1,2"
[[ $INTERVAL =~ ^[0-9]*\.?[0-9]+$ ]] || die "--interval must be a number of seconds"
[[ $(id -u) == 0 ]] || die "needs root (losetup, mount)"
declare -A SIZE_BYTES=([1]=$(size_bytes "$SIZE1") [2]=$(size_bytes "$SIZE2"))
declare -A LINK_BYTES=([1]=$(rate_bytes "$BANDWIDTH1") [2]=$(rate_bytes "$BANDWIDTH2"))
declare -A BANDWIDTH=([1]=$BANDWIDTH1 [2]=$BANDWIDTH2) SCALE=([1]=$SCALE1 [2]=$SCALE2)
declare -A CASE_ARMS=([1]="default pull-off" [2]="pull-off pull-block pull-heat")
REGION_BYTES=$(size_bytes "$READ_REGION")
half_duration "$RTT" >/dev/null

"$REPO/bin/install-packages" postgresql postgresql-contrib libnbd-bin fio python3-libnbd fuse3 >&2 ||
  die "could not install the packages this benchmark needs"
NBD_PYTHON=/usr/bin/python3
"$NBD_PYTHON" -c 'import nbd' 2>/dev/null || die "$NBD_PYTHON has no 'nbd' module (Debian: python3-libnbd)"
require_tools nbdfuse nbdcopy fio curl java losetup mkfs.ext4 fusermount3 runuser
PG_BIN=$(compgen -G '/usr/lib/postgresql/*/bin' | sort -V | tail -n 1)
[[ -x $PG_BIN/pg_ctl && -x $PG_BIN/pgbench ]] || die "no PostgreSQL in /usr/lib/postgresql/*/bin"
PG_VERSION=$(basename "$(dirname "$PG_BIN")")
BUILD=$(cd "$(dirname "$HELIO")/.." && pwd)
require_build "$BUILD"
set_up_ports "$PORT_OFFSET"

# What this build's CLI knows of the pull (the feature of issue #29).
PULL_FLAG=0 PULL_ORDER_FLAG=0
# (The help is read whole first: grep -q would end the pipe early, and pipefail fail it.)
[[ $(helio image create --help 2>&1) == *--pull* ]] && PULL_FLAG=1
[[ $(helio up --help 2>&1) == *--pull-order* ]] && PULL_ORDER_FLAG=1

CREATED_WORK=
[[ -d $WORK ]] || CREATED_WORK=1
mkdir -p "$WORK/cache" "$OUT/logs" "$OUT/raw"
PG_DIR=$WORK/pg     # the socket, the server's log and pgbench's transaction logs: postgres writes there
MNT=$WORK/mnt
FUSE_DIR=$WORK/fuse
rm -rf "$PG_DIR" "$WORK/up"
mkdir -p "$PG_DIR" "$MNT" "$FUSE_DIR"
chown postgres: "$PG_DIR"
chmod 755 "$WORK" "$MNT"

# State the cleanup undoes, newest first: PostgreSQL, the mount, the loop device, nbdfuse.
PG_DATA= LOOP=

pg() { (cd / && runuser -u postgres -- "$@"); }

pg_start() {
  PG_DATA=$1
  pg "$PG_BIN/pg_ctl" start -w -t 600 -D "$1" -l "$PG_DIR/postgres.log" \
    -o "-k $PG_DIR -c listen_addresses=''" >>"$OUT/logs/pg_ctl.log" 2>&1 ||
    die "pg_ctl start failed (see $OUT/logs/pg_ctl.log, $PG_DIR/postgres.log)"
}

pg_stop() {  # MODE: fast (a clean shutdown) or immediate (cleanup)
  [[ -n $PG_DATA ]] || return 0
  pg "$PG_BIN/pg_ctl" stop -w -t 600 -m "$1" -D "$PG_DATA" >>"$OUT/logs/pg_ctl.log" 2>&1 ||
    log "pg_ctl stop -m $1 failed (see $OUT/logs/pg_ctl.log)"
  PG_DATA=
}

pgbench() { pg "$PG_BIN/pgbench" -h "$PG_DIR" "$@" postgres; }

# unmount: the file system off MNT, then the loop device. umount is retried: PostgreSQL's
# last process may still hold the mount a moment after pg_ctl stop returned.
unmount() {
  local deadline=$((SECONDS + 30))
  while mountpoint -q "$MNT"; do
    umount "$MNT" 2>>"$OUT/logs/umount.log" && continue
    if ((SECONDS >= deadline)); then
      log "umount $MNT: busy for 30 s (see $OUT/logs/umount.log)"
      return 1
    fi
    sleep 0.2
  done
  if [[ -n $LOOP ]]; then losetup -d "$LOOP" || log "losetup -d $LOOP failed"; LOOP=; fi
}

# unfuse: fusermount3 -u, which ends nbdfuse (and its connection).
unfuse() {
  local deadline=$((SECONDS + 30))
  if mountpoint -q "$FUSE_DIR"; then
    until fusermount3 -u "$FUSE_DIR" 2>>"$OUT/logs/fuse.log"; do
      # the loop device lets go of the file a moment after losetup -d
      ((SECONDS < deadline)) || { log "fusermount3 -u $FUSE_DIR failed for 30 s"; break; }
      sleep 0.2
    done
  fi
  stop nbdfuse
}

detach() {
  unmount || die "could not unmount $MNT"
  unfuse
}

cleanup() {
  pg_stop immediate
  # A mount still busy after 30 s is detached lazily: the kernel lets go of it when its
  # last user does.
  unmount || { umount -l "$MNT"; unmount; } || true
  unfuse
  stop_all
  if [[ $KEEP_WORK != 1 ]]; then
    # --one-file-system: never into a mount that could not be undone
    rm -rf --one-file-system "$WORK/up" "$PG_DIR"
    [[ -n $CREATED_WORK ]] && rm -rf --one-file-system "$WORK"
  fi
  return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# attach URI: nbdfuse exposes the export as FUSE_DIR/nbd, a loop device over it is mounted
# on MNT.
attach() {
  local deadline=$((SECONDS + ATTACH_TIMEOUT))
  if mountpoint -q "$MNT" || mountpoint -q "$FUSE_DIR"; then die "$MNT or $FUSE_DIR is still mounted"; fi
  launch nbdfuse nbdfuse "$FUSE_DIR/nbd" "$1"
  until [[ -e $FUSE_DIR/nbd ]]; do
    alive "${PID[nbdfuse]}" || { tail -n 5 "$OUT/logs/nbdfuse.log" >&2; die "nbdfuse $1 exited"; }
    ((SECONDS < deadline)) || die "nbdfuse $1: no $FUSE_DIR/nbd after $ATTACH_TIMEOUT s"
    sleep 0.05
  done
  LOOP=$(losetup -f --show "$FUSE_DIR/nbd") || die "losetup $FUSE_DIR/nbd failed"
  mount -t ext4 "$LOOP" "$MNT" || die "mount $LOOP failed"
}

# The prepared file system of a case, made once: mkfs.ext4, initdb, pgbench -i.
cache_file() { echo "$WORK/cache/pg$PG_VERSION-s${SCALE[$1]}-${SIZE_BYTES[$1]}.raw"; }

prepare_cache() {
  local c=$1 file
  file=$(cache_file "$c")
  [[ -f $file && -f $file.region ]] && return 0
  log "case $c: preparing $file (mkfs.ext4, initdb, pgbench -i -s ${SCALE[$c]})"
  rm -f "$file" "$file.tmp"
  truncate -s "${SIZE_BYTES[$c]}" "$file.tmp"
  LOOP=$(losetup -f --show "$file.tmp") || die "losetup $file.tmp failed"
  # Inode tables and journal written now: ext4lazyinit would otherwise write them later,
  # in the middle of a measurement.
  mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP" || die "mkfs.ext4 failed"
  mountpoint -q "$MNT" && die "$MNT is still mounted"
  mount -t ext4 "$LOOP" "$MNT" || die "mount $LOOP failed"
  install -d -o postgres -g postgres -m 700 "$MNT/pgdata"
  pg "$PG_BIN/initdb" -A trust -D "$MNT/pgdata" >>"$OUT/logs/initdb.log" 2>&1 || die "initdb failed (see $OUT/logs/initdb.log)"
  pg_start "$MNT/pgdata"
  pgbench -i -q -s "${SCALE[$c]}" >>"$OUT/logs/pgbench-init.log" 2>&1 || die "pgbench -i failed (see $OUT/logs/pgbench-init.log)"
  pg_stop fast
  unmount
  "$NBD_PYTHON" "$HERE/pgmove.py" region "$file.tmp" "$REGION_BYTES" >"$file.region"
  mv "$file.tmp" "$file"
  log "case $c: $(du -h --apparent-size "$file" | cut -f1) file system, $(du -h "$file" | cut -f1) of data"
}

# arm_flags CASE ARM: sets CREATE (image create flags) and UP (helio up flags) for the arm;
# without the CLI's support, the pull flags are left out, with a word in the log.
arm_flags() {
  CREATE=() UP=() ARM_NOTE=
  case $1/$2 in
    1/default) ;;
    1/pull-off) CREATE=(--pull off) ;;
    2/pull-off) CREATE=(--mode on-demand) ;;
    2/pull-block) CREATE=(--mode on-demand --pull on) UP=(--pull-order block) ;;
    2/pull-heat) CREATE=(--mode on-demand --pull on) ;;
    *) die "no arm $2 in case $1" ;;
  esac
  local missing=()
  if [[ $PULL_FLAG == 0 && " ${CREATE[*]} " == *" --pull "* ]]; then
    local i kept=()
    for ((i = 0; i < ${#CREATE[@]}; i++)); do
      if [[ ${CREATE[i]} == --pull ]]; then ((++i)); else kept+=("${CREATE[i]}"); fi
    done
    CREATE=("${kept[@]}") missing+=(pull)
  fi
  if [[ $PULL_ORDER_FLAG == 0 && ${#UP[@]} -gt 0 ]]; then
    UP=() missing+=(--pull-order)
  fi
  if ((${#missing[@]})); then
    ARM_NOTE="${missing[*]}"
    ARM_NOTE="${ARM_NOTE/ / and } not supported by this build; arm $2 runs without"
    log "$ARM_NOTE"
  fi
}

# helio up with extra flags: lib.sh's helio_up runs $HELIO, so a wrapper adds them. The
# previous arm's log goes first: launch empties it only once its child runs, and
# wait_for_line could meet the old "Press Ctrl-C" before that.
up_with() {
  local wrapper=$OUT/helio-up-wrapper
  rm -f "$OUT/logs/up.log"
  if (($# == 0)); then helio_up up "$WORK/up" "$RTT" "$BW"; return; fi
  printf '#!/bin/sh\nexec %q "$@"%s\n' "$HELIO" "$(printf ' %q' "$@")" >"$wrapper"
  chmod +x "$wrapper"
  HELIO=$wrapper helio_up up "$WORK/up" "$RTT" "$BW"
}

TAIWAN_METRICS=
taiwan() { metric "$TAIWAN_METRICS" "$@"; }

now() { echo "$EPOCHREALTIME"; }
since() { awk -v s="$1" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", e - s }'; }

# read_iops LABEL: fio's 4 KiB random reads at QD 8 over the read window, at taiwan.
read_iops() {
  local json=$OUT/raw/$TAG.fio-$1.json
  fio --name="$1" --ioengine=nbd --uri="nbd://127.0.0.1:$NBD_T/$IMAGE" --rw=randread --bs=4k \
    --iodepth=8 --offset="$REGION" --size="$REGION_BYTES" --time_based --runtime="$READ_SECONDS" \
    --output-format=json --output="$json" >>"$OUT/logs/fio.log" 2>&1 || die "fio $1 failed (see $OUT/logs/fio.log)"
  "$NBD_PYTHON" "$HERE/pgmove.py" iops "$json"
}

# warm_region: the read window read once, so its blocks are local at taiwan.
warm_region() {
  fio --name=warm --ioengine=nbd --uri="nbd://127.0.0.1:$NBD_T/$IMAGE" --rw=read --bs=1M --iodepth=8 \
    --offset="$REGION" --size="$REGION_BYTES" >>"$OUT/logs/fio.log" 2>&1 || die "fio warm read failed (see $OUT/logs/fio.log)"
}

pulling() { (($(taiwan heliotrope_pull_running) > 0 || $(taiwan heliotrope_pull_elsewhere_blocks) > 0)); }

# Whether taiwan exports the pull's metrics at all (a build without the pull does not).
pull_metrics() { [[ $(curl -fsS --max-time 5 "$TAIWAN_METRICS") == *heliotrope_pull_* ]]; }

# wait_settled: until taiwan's elsewhere gauge reads 0; prints the time it did (empty if never).
wait_settled() {
  local deadline=$((SECONDS + SETTLE_TIMEOUT))
  while ((SECONDS < deadline)); do
    if (($(taiwan heliotrope_pull_elsewhere_blocks) == 0)); then now; return 0; fi
    sleep 0.2
  done
  log "$TAG: elsewhere still $(taiwan heliotrope_pull_elsewhere_blocks) blocks after $SETTLE_TIMEOUT s"
}

run_arm() {
  local c=$1 arm=$2 round=$3 tps_a t0 t_attached t_bench t_end pg_start_s during= after= settled= pulls=0
  TAG=c$c-$arm-r$round IMAGE=pgmove BW=${BANDWIDTH[$c]}
  arm_flags "$c" "$arm"
  if [[ $arm == default || $arm == pull-block || $arm == pull-heat ]]; then pulls=1; fi
  log "== case $c, arm $arm, round $round: image create ${CREATE[*]:-(defaults)}${UP[*]:+, helio up ${UP[*]}}"
  rm -rf "$WORK/up"
  rm -f "$PG_DIR/postgres.log"
  up_with "${UP[@]}"
  TAIWAN_METRICS=http://127.0.0.1:$METRICS_T/metrics
  helio image create "$IMAGE" --size "${SIZE_BYTES[$c]}" --home virginia "${CREATE[@]}" \
    --controller "$CONTROLLER" >>"$OUT/logs/cli.log" 2>&1 || die "image create failed (see $OUT/logs/cli.log)"
  nbdcopy --destination-is-zero "$(cache_file "$c")" "nbd://127.0.0.1:$NBD_V/$IMAGE" 2>>"$OUT/logs/nbdcopy.log" ||
    die "import at virginia failed (see $OUT/logs/nbdcopy.log)"
  wait_closed "$IMAGE" "$CLOSE_TIMEOUT" || die "$IMAGE did not close after the import"

  # A: virginia.
  attach "nbd://127.0.0.1:$NBD_V/$IMAGE"
  pg_start "$MNT/pgdata"
  pgbench -T "$A_DURATION" -P 1 -c "$CLIENTS" >"$OUT/raw/$TAG.pgbench-a.txt" 2>&1 || die "pgbench at virginia failed"
  tps_a=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/raw/$TAG.pgbench-a.txt" | tail -n 1)
  pg_stop fast
  detach
  wait_closed "$IMAGE" "$CLOSE_TIMEOUT" || die "$IMAGE did not close at virginia"
  log "$TAG: virginia $tps_a tps"

  # B: taiwan, with the sampler running from before the open.
  launch sampler "$NBD_PYTHON" "$HERE/pgmove.py" sample --metrics "$TAIWAN_METRICS" --peer virginia \
    --interval "$INTERVAL" --csv "$OUT/raw/$TAG.samples.csv"
  local deadline=$((SECONDS + 30))
  until [[ -f $OUT/raw/$TAG.samples.csv ]] && (($(wc -l <"$OUT/raw/$TAG.samples.csv") >= 3)); do
    alive "${PID[sampler]}" || die "the sampler exited (see $OUT/logs/sampler.log)"
    ((SECONDS < deadline)) || die "no samples of $TAIWAN_METRICS after 30 s"
    sleep 0.1
  done
  t0=$(now)
  attach "nbd://127.0.0.1:$NBD_T/$IMAGE"
  t_attached=$(now)
  pg_start "$MNT/pgdata"
  pg_start_s=$(since "$t_attached")
  rm -f "$PG_DIR"/tx.*
  t_bench=$(now)
  pgbench -T "$DURATION" -P 1 --progress-timestamp -c "$CLIENTS" -l --log-prefix="$PG_DIR/tx" \
    >"$OUT/raw/$TAG.pgbench-b.txt" 2>&1 || die "pgbench at taiwan failed (see $OUT/raw/$TAG.pgbench-b.txt)"
  t_end=$(now)
  cat "$PG_DIR"/tx.* >"$OUT/raw/$TAG.tx"
  log "$TAG: taiwan $(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$OUT/raw/$TAG.pgbench-b.txt" | tail -n 1) tps over $DURATION s;" \
    "open to PostgreSQL started $(awk -v a="$t0" -v b="$t_attached" -v s="$pg_start_s" 'BEGIN { printf "%.1f", b - a + s }') s"

  if [[ $c/$arm == 2/pull-heat ]]; then
    if pulling; then
      warm_region
      during=$(read_iops during)
      log "$TAG: random reads while the pull runs: $during IOPS"
      pulling || log "$TAG: the pull ended before the read check did: its 'during' number is partly after it"
    else
      log "$TAG: the pull is not running after pgbench; no read check during it"
    fi
  fi
  if ((pulls)) && ! pull_metrics; then
    log "$TAG: taiwan exports no heliotrope_pull_ metric; not waiting for the pull to settle"
  elif ((pulls)); then
    settled=$(wait_settled)
    [[ -z $settled ]] || log "$TAG: nothing elsewhere $(awk -v a="$t0" -v b="$settled" 'BEGIN { printf "%.1f", b - a }') s after the open"
  fi
  if [[ $c/$arm == 2/pull-heat ]]; then
    [[ -n $during ]] || warm_region
    after=$(read_iops after)
    log "$TAG: random reads after the pull: $after IOPS"
  fi
  pg_stop fast
  detach
  stop sampler
  cp "$PG_DIR/postgres.log" "$OUT/raw/$TAG.postgres.log" 2>/dev/null || true
  stop up
  echo "$c,$arm,$round,${LINK_BYTES[$c]},$t0,$t_attached,$t_bench,$t_end,$pg_start_s,$tps_a,$during,$after,$settled,\"$ARM_NOTE\"" \
    >>"$OUT/pg-move-arms.csv"
}

selected() { [[ -z $ARMS || ",$ARMS," == *",$1,"* ]]; }

IFS=, read -r -a CASE_LIST <<<"$CASES"
for c in "${CASE_LIST[@]}"; do
  prepare_cache "$c"
done
REGION=
echo "case,arm,round,link_bytes_per_s,t0,t_attached,t_pgbench,t_end,pg_start_s,tps_a,read_iops_during,read_iops_after,t_settled,note" \
  >"$OUT/pg-move-arms.csv"
for ((r = 1; r <= ROUNDS; r++)); do
  for c in "${CASE_LIST[@]}"; do
    REGION=$(cat "$(cache_file "$c").region")
    for arm in ${CASE_ARMS[$c]}; do
      if selected "$arm"; then run_arm "$c" "$arm" "$r"; fi
    done
  done
done

ensure_gnuplot
{
  echo "PostgreSQL moved virginia -> taiwan, $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "RTT $RTT; case 1: $BANDWIDTH1, pgbench -s $SCALE1, $SIZE1; case 2: $BANDWIDTH2, pgbench -s $SCALE2, $SIZE2;" \
    "pgbench -c $CLIENTS, $A_DURATION s at virginia, $DURATION s at taiwan; PostgreSQL $PG_VERSION; $ROUNDS round(s)"
  ((PULL_FLAG)) || echo "this build's CLI has no --pull: the arms that set it ran without"
  ((PULL_ORDER_FLAG)) || echo "this build's CLI has no --pull-order: arm pull-block ran in the default order"
  echo
  python3 "$HERE/geo_report.py" pg-move "$OUT/pg-move-arms.csv" "$OUT/raw" "$OUT"
} | tee "$OUT/summary.txt"
log "results in $OUT (pg-move-tps.csv, pg-move-runs.csv, pg-move.png, summary.txt, raw/, logs/)"
