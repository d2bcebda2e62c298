#!/usr/bin/env bash
# The paper's DBENCH experiment (Supercloud, section 4.4, Fig. 12 and 13) with a real guest:
# dbench in a QEMU guest whose root disk is a Heliotrope image, live-migrated between the two
# sites of `helio up` while it runs, once per arm. Run with --help.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HELIO=$REPO/bin/helio

ALL_ARMS="remote sync on-demand proactive shipped nbdkit"
ARMS=$ALL_ARMS
RUNS=3
DBENCH_TIME=90
CLIENTS=4
MIGRATE_AFTER=10
MEMORY=512M
GUEST_CACHE=28M
RTT=75ms
BANDWIDTH=1gbit
PORT_OFFSET=110
PIN=1
WORK=/var/tmp/migration-dbench
OUT=/var/tmp/migration-results/dbench-$(date +%Y%m%d-%H%M%S)

usage() {
  cat <<EOF2
Usage: benchmarks/migration/dbench.sh [options]

DBENCH under live migration (the paper's Fig. 12 and 13). A QEMU guest (TCG, 1 vCPU,
--memory) boots from a Debian root file system with dbench inside
(benchmarks/dbench-guest/build.sh), runs 'dbench -t --time --clients' on it, and
--migrate-after seconds after dbench started it is live-migrated from virginia to taiwan
through the emulated WAN (--rtt, --bandwidth). Each arm, --runs times, interleaved
(arm 1 run 1, arm 2 run 1, ..., arm 1 run 2, ...), each on a fresh 'helio up':

  remote      image mode remote, home virginia: taiwan keeps no copies (the paper's NFS)
  sync        mode sync, 1 copy: a write is acknowledged once the other site holds it
  on-demand   mode on-demand: taiwan fetches what it reads and lacks
  proactive   mode proactive, transitions virginia:taiwan=1 (the VM moves there)
  shipped     proactive as shipped: with the handoff's boost and the pull after it
  nbdkit      no Heliotrope: the disk stays on 'nbdkit file' at virginia; after the move
              taiwan's QEMU reaches it through a link like the sites' (what a user has
              without us); plain QEMU migration through another such link

The paper's four arms run with 'helio up --no-handoff-boost' and the image's '--pull
off', so the modes differ as in the paper. Every Heliotrope arm starts with the guest's
root image imported at virginia and read once in full at taiwan (the base image cached at
both sites, as a golden image is), the push queue empty: what differs is what the guest
does during the run. The migration is 'helio vm migrate dbench --to taiwan' (the
driver beside the controller at virginia).

Pinning (unless --no-pin): this script, helio up (sites, controller, WAN emulator),
nbdkit and the links run on core 0, every QEMU on core 1, so that the guest's TCG does
not measure our CPU (it takes 1.5-1.7 cores otherwise).

Measured per second (dbench's own progress lines, from the console, by the guest's
seconds since dbench started): throughput; per site, from /metrics every second:
heliotrope_io_wan_wait_seconds_total by cause (fetch, sync, remote: the time the guest's
requests waited on the WAN; its rate is the mean number of requests waiting) and the peer
bytes each way. Per run: mean throughput over the whole dbench run (warmup included: the
move falls in it), dbench's final figure, WAN bytes each way, storage and RAM apart.

Options (defaults in brackets):
  --arms LIST          comma-separated, of: ${ALL_ARMS// /,} [all]
  --runs N             runs of each arm [$RUNS]
  --time S             dbench -t [$DBENCH_TIME]
  --clients N          dbench clients [$CLIENTS]
  --migrate-after S    seconds after dbench's start the migration starts [$MIGRATE_AFTER]
  --memory SIZE        the guest's RAM [$MEMORY]
  --guest-cache SIZE   the memory dbench may use in the guest, its page cache included (a
                       cgroup's memory.max; 'none' for all of it): with the whole working set
                       cached, almost no read reaches the disk (7.5 MiB in 20 s) and the modes
                       differ on writes only; at 28M, as in benchmarks/dbench-trace, dbench
                       reads back what it wrote, as a guest short of memory does [$GUEST_CACHE]
  --rtt DURATION       emulated round trip [$RTT]
  --bandwidth RATE     emulated bandwidth per direction [$BANDWIDTH]
  --port-offset N      helio up's ports are its defaults plus N [$PORT_OFFSET]
  --no-pin             do not pin QEMU and the rest to separate cores
  --work DIR           data, the guest, scratch [$WORK]
  --out DIR            results: dbench-runs.csv, dbench-seconds.csv, dbench-timeline.png,
                       dbench-bars.png, summary.txt, raw/, logs/ [/var/tmp/migration-results/dbench-<time>]
  -h, --help           this text
EOF2
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --arms) ARMS=${2//,/ }; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --time) DBENCH_TIME=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --migrate-after) MIGRATE_AFTER=$2; shift 2 ;;
    --memory) MEMORY=$2; shift 2 ;;
    --guest-cache) GUEST_CACHE=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --no-pin) PIN=0; shift ;;
    --work) WORK=$(realpath -m "$2"); shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    *) echo "dbench.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"
for arm in $ARMS; do
  [[ " $ALL_ARMS " == *" $arm "* ]] || die "unknown arm '$arm' (of: $ALL_ARMS)"
done
for n in "$RUNS" "$DBENCH_TIME" "$CLIENTS" "$MIGRATE_AFTER" "$PORT_OFFSET"; do
  [[ $n =~ ^[0-9]+$ ]] || die "--runs, --time, --clients, --migrate-after and --port-offset take whole numbers"
done
((RUNS > 0 && DBENCH_TIME > MIGRATE_AFTER)) || die "need --runs > 0 and --time > --migrate-after"
require_tools qemu-system-x86_64 nbdkit nbdcopy java python3 curl taskset
mkdir -p "$OUT/logs" "$OUT/raw" "$WORK"
DATA=$WORK/data   # helio up's, once it runs; kill_vms looks there
trap 'stop_all; kill_vms' EXIT
trap 'exit 130' INT TERM
DBENCH_GUEST=$WORK/dbench-guest
WATCH="$HERE/dbench_watch.py"

CORES=$(nproc)
if ((PIN)); then
  ((CORES >= 2)) || die "pinning needs 2 cores (or --no-pin)"
  taskset -cp 0 $$ >/dev/null   # this script and everything it starts, but QEMU
  QEMU_CORE=(taskset -c 1)
else
  QEMU_CORE=()
fi
# The QEMU the sites' runners start: on its own core.
QEMU_WRAPPER=$WORK/qemu-pinned
printf '#!/bin/sh\nexec %s qemu-system-x86_64 "$@"\n' "${QEMU_CORE[*]}" >"$QEMU_WRAPPER"
chmod +x "$QEMU_WRAPPER"

log "building the dbench guest (logs/build.log)"
bash "$REPO/benchmarks/dbench-guest/build.sh" "$DBENCH_GUEST" >>"$OUT/logs/build.log" 2>&1 ||
  die "benchmarks/dbench-guest/build.sh failed (see $OUT/logs/build.log)"
ROOT_IMG=$DBENCH_GUEST/root.img
ROOT_SIZE=$(stat -c %s "$ROOT_IMG")
APPEND="console=ttyS0 panic=-1 quiet helio.dbench_time=$DBENCH_TIME helio.dbench_clients=$CLIENTS"
[[ $GUEST_CACHE == none ]] || APPEND+=" helio.dbench_memory=$GUEST_CACHE"
prepare_links   # for the nbdkit arm
now() { date +%s.%N; }

RUNS_CSV=$OUT/dbench-runs.csv
echo "arm,run,outcome,t_booted,t_counted,t_start,t_migrate,t_migrated,t_done,migration_total_ms,guest_downtime_ms,ram_bytes,storage_forward_bytes,storage_backward_bytes,dbench_mb_s" >"$RUNS_CSV"

# await_console PATTERN TIMEOUT FILE...: until a console log holds PATTERN (fixed string);
# prints the host time it was seen.
await_console() {
  local pattern=$1 timeout=$2 deadline=$((SECONDS + $2))
  shift 2
  until grep -qsF -- "$pattern" "$@"; do
    ((SECONDS < deadline)) || die "no '$pattern' on the console within $timeout s (see $*)"
    sleep 0.2
  done
  now
}

# dbench_result FILE...: the guest's final dbench figure (MB/s) from its "done" line.
dbench_result() {
  grep -hs 'HELIO-DBENCH: done' "$@" | sed -n 's/.*Throughput \([0-9.]*\) MB\/sec.*/\1/p' | tail -n 1
}

# image_options ARM: the replication options of a Heliotrope arm's image.
image_options() {
  case $1 in
    remote) echo "--mode remote --pull off" ;;
    sync) echo "--mode sync --sync-copies 1 --pull off" ;;
    on-demand) echo "--mode on-demand --pull off" ;;
    proactive) echo "--mode proactive --transitions virginia:taiwan=1 --pull off" ;;
    shipped) echo "--mode proactive --transitions virginia:taiwan=1" ;;
  esac
}

# heliotrope_arm ARM RUN: one run on a fresh helio up; appends its row to dbench-runs.csv.
heliotrope_arm() {
  local arm=$1 run=$2 tag=$1-r$2 boost=() t_booted t_counted t_start t_migrate t_migrated t_done result before after
  [[ $arm == shipped ]] || boost=(--no-handoff-boost)
  start_up_with_vms --qemu "$QEMU_WRAPPER" "${boost[@]}"
  local v_metrics=http://127.0.0.1:$METRICS_V/metrics t_metrics=http://127.0.0.1:$METRICS_T/metrics
  # Imported and cached on-demand, then set to the arm's mode, which its next open takes: a
  # sync image opened before the site knows the other one would fail every write (issue #26).
  helio image create disk --size "$ROOT_SIZE" --home virginia --mode on-demand >&2
  log "$tag: the root image imported at virginia$([[ $arm == remote ]] || echo ", then read in full at taiwan")"
  nbdcopy "$ROOT_IMG" "nbd://127.0.0.1:$NBD_V/disk"
  wait_closed disk 60
  if [[ $arm != remote ]]; then
    nbdcopy "nbd://127.0.0.1:$NBD_T/disk" null:
    wait_closed disk 60
  fi
  # shellcheck disable=SC2046
  helio image set disk $(image_options "$arm") >&2
  local deadline=$((SECONDS + 120))
  until [[ $(metric "$v_metrics" heliotrope_propagation_queue) == 0 ]]; do
    ((SECONDS < deadline)) || die "$tag: virginia's push queue did not drain in 120 s (or its /metrics did not answer)"
    sleep 0.5
  done
  helio vm create dbench --site virginia --disk disk --memory "$MEMORY" --vcpus 1 --kernel "$DBENCH_GUEST/vmlinuz" \
    --initrd "$DBENCH_GUEST/initrd.img" --append "$APPEND" >&2
  helio vm start dbench >&2
  local consoles=("$DATA/virginia/vms/dbench/console.log" "$DATA/taiwan/vms/dbench/console.log")
  t_booted=$(await_console "HELIO-DBENCH: booted" 300 "${consoles[@]}")
  launch "watch-$tag" python3 "$WATCH" watch --csv-prefix "$OUT/raw/$tag" \
    --metrics "virginia=$v_metrics" --metrics "taiwan=$t_metrics" --console "${consoles[0]}" --console "${consoles[1]}"
  # The storage bytes count from here, just before dbench starts, to its end.
  before=$(peer_totals "$v_metrics") || die "$tag: virginia's peer bytes could not be read"
  t_counted=$(now)
  python3 "$WATCH" go "$DATA/virginia/vms/dbench/console.sock"
  t_start=$(await_console "HELIO-DBENCH: start" 60 "${consoles[@]}")
  sleep_until "$t_start" "$MIGRATE_AFTER"
  t_migrate=$(now)
  result=$(helio vm migrate dbench --to taiwan --json 2>>"$OUT/logs/migrate.log") || die "$tag: the migration did not complete: $result"
  t_migrated=$(now)
  echo "$result" >>"$OUT/raw/$tag.migration.json"
  t_done=$(await_console "HELIO-DBENCH: done" $((DBENCH_TIME * 3 + 120)) "${consoles[@]}")
  after=$(peer_totals "$v_metrics") || die "$tag: virginia's peer bytes could not be read"
  stop "watch-$tag"
  local row
  row=$(python3 - "$result" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
print(",".join([r["outcome"].replace("MIGRATION_OUTCOME_", "").lower(), f"{int(r.get('totalMicros', 0)) / 1000:.1f}",
                f"{int(r.get('downtimeMicros', 0)) / 1000:.1f}", str(r.get("ramBytes", 0))]))
PY
)
  echo "$arm,$run,${row%%,*},$t_booted,$t_counted,$t_start,$t_migrate,$t_migrated,$t_done,${row#*,},$(( ${after% *} - ${before% *} )),$(( ${after#* } - ${before#* } )),$(dbench_result "${consoles[@]}")" >>"$RUNS_CSV"
  cp "${consoles[0]}" "$OUT/raw/$tag.console-virginia.log"
  cp "${consoles[1]}" "$OUT/raw/$tag.console-taiwan.log"
  helio vm stop dbench --kill >&2 || true
  stop_all
  kill_vms
}

# sleep_until T0 S: until S seconds after the host time T0.
sleep_until() {
  local left
  left=$(awk -v t0="$1" -v s="$2" -v now="$(now)" 'BEGIN { d = t0 + s - now; print (d > 0 ? d : 0) }')
  sleep "$left"
}

# nbdkit_arm RUN: the disk left behind on nbdkit at virginia, plain QEMU moved through a link.
nbdkit_arm() {
  local run=$1 tag=nbdkit-r$1 dir=$WORK/nbdkit t_booted t_start t_migrate t_migrated t_done result
  local nbd_port link_nbd link_mig incoming
  rm -rf "$dir" && mkdir -p "$dir/src" "$dir/dst"
  cp --sparse=always "$ROOT_IMG" "$dir/disk.img"
  nbd_port=$(free_port) link_nbd=$(free_port) link_mig=$(free_port) incoming=$(free_port)
  launch "nbdkit-$tag" nbdkit -f -i 127.0.0.1 -p "$nbd_port" file "$dir/disk.img"
  start_link "link-nbd-$tag" "$link_nbd" "$nbd_port"
  start_link "link-mig-$tag" "$link_mig" "$incoming"
  nbdkit_qemu "qemu-src-$tag" "$dir/src" "$nbd_port"
  nbdkit_qemu "qemu-dst-$tag" "$dir/dst" "$link_nbd" -incoming "tcp:127.0.0.1:$incoming"
  local consoles=("$dir/src/console.log" "$dir/dst/console.log")
  t_booted=$(await_console "HELIO-DBENCH: booted" 300 "${consoles[@]}")
  launch "watch-$tag" python3 "$WATCH" watch --csv-prefix "$OUT/raw/$tag" --console "${consoles[0]}" --console "${consoles[1]}"
  python3 "$WATCH" go "$dir/src/console.sock"
  t_start=$(await_console "HELIO-DBENCH: start" 60 "${consoles[@]}")
  sleep_until "$t_start" "$MIGRATE_AFTER"
  t_migrate=$(now)
  result=$(python3 "$HERE/qmp_migrate.py" plain "$dir/src/qmp.sock" "$dir/dst/qmp.sock" "tcp:127.0.0.1:$link_mig") ||
    die "$tag: the migration failed: $result"
  t_migrated=$(now)
  echo "$result" >"$OUT/raw/$tag.migration.json"
  stop "qemu-src-$tag"
  t_done=$(await_console "HELIO-DBENCH: done" $((DBENCH_TIME * 3 + 120)) "${consoles[@]}")
  stop "watch-$tag"
  stop "qemu-dst-$tag"
  stop "link-nbd-$tag"
  stop "link-mig-$tag"
  local nbd_bytes mig_bytes
  read -r -a nbd_bytes < <(link_bytes "link-nbd-$tag")
  read -r -a mig_bytes < <(link_bytes "link-mig-$tag")
  local row
  row=$(python3 - "$result" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
print(f"{r['wall_ms']:.1f},{r['guest_downtime_ms']:.1f}")
PY
)
  # Storage: what taiwan's QEMU read and wrote through the link: the link's backward bytes
  # came from virginia (reads), its forward bytes went there (writes); RAM: the migration link.
  echo "nbdkit,$run,completed,$t_booted,$t_start,$t_start,$t_migrate,$t_migrated,$t_done,$row,${mig_bytes[0]},${nbd_bytes[1]},${nbd_bytes[0]},$(dbench_result "${consoles[@]}")" >>"$RUNS_CSV"
  cp "${consoles[0]}" "$OUT/raw/$tag.console-virginia.log"
  cp "${consoles[1]}" "$OUT/raw/$tag.console-taiwan.log"
  stop_all
  rm -rf "$dir"
}

# nbdkit_qemu NAME DIR NBD_PORT [QEMU ARGS...]: the dbench guest as the sites' runners start
# it, its disk the NBD export at NBD_PORT; returns once QMP listens.
nbdkit_qemu() {
  local name=$1 dir=$2 port=$3
  shift 3
  launch_qemu "$name" "$dir" -nodefaults -m "$(($(size_bytes "$MEMORY") >> 20))M" -smp 1 \
    -kernel "$DBENCH_GUEST/vmlinuz" -initrd "$DBENCH_GUEST/initrd.img" -append "$APPEND" \
    -blockdev "driver=nbd,node-name=nbd0,server.type=inet,server.host=127.0.0.1,server.port=$port,reconnect-delay=5" \
    -blockdev driver=raw,node-name=disk0,file=nbd0 -device virtio-blk-pci,drive=disk0,id=virtio-disk0 "$@"
}

for ((run = 1; run <= RUNS; run++)); do
  for arm in $ARMS; do
    log "run $run of $RUNS: $arm"
    if [[ $arm == nbdkit ]]; then
      nbdkit_arm "$run"
    else
      heliotrope_arm "$arm" "$run"
    fi
    log "  $(tail -n 1 "$RUNS_CSV")"
  done
done

ensure_gnuplot
{
  echo "DBENCH under live migration, $(date -Is) on $(hostname), $CORES cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "guest: TCG, 1 vCPU, $MEMORY (dbench's memory: $GUEST_CACHE), Debian root on the image; dbench -t $DBENCH_TIME $CLIENTS; moved virginia -> taiwan $MIGRATE_AFTER s after dbench's start"
  echo "link $RTT RTT / $BANDWIDTH; $(qemu-system-x86_64 --version | head -n 1); $( ((PIN)) && echo "QEMU on core 1, the rest on core 0" || echo "not pinned")"
  echo
  python3 "$HERE/dbench_report.py" "$OUT" "$MIGRATE_AFTER"
} | tee "$OUT/summary.txt"
log "results in $OUT (dbench-runs.csv, dbench-seconds.csv, dbench-timeline.png, dbench-bars.png, summary.txt, raw/, logs/)"
