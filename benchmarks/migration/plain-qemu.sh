#!/usr/bin/env bash
# Baseline: the records guest migrated by plain QEMU, its disk left on one nbdkit that both
# QEMUs use, the migration stream through the emulated WAN. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

MIGRATIONS=5
RTT=75ms
BANDWIDTH=1gbit
WORK=/var/tmp/migration-plain-qemu
OUT=/var/tmp/migration-results/plain-qemu-$(date +%Y%m%d-%H%M%S)

usage() {
  cat <<EOF2
Usage: benchmarks/migration/plain-qemu.sh [options]

The guest-downtime baseline of issue #21: the records guest (it-tests/src/test/guest,
128 MiB, TCG) migrated by plain QEMU 7.2 as a user would without Heliotrope: default
capabilities plus 'events' (for the timestamps), no pause-before-switchover, the
destination started with '-incoming tcp:...' and no -S, so it resumes by itself. The disk
stays on one 'nbdkit memory 64M' that both QEMUs open (-blockdev nbd); only the migration
stream crosses the emulated link (WanProxyMain, RTT/2 each way, --bandwidth, 6 MiB window),
a fresh link per migration so its byte counts are that migration's.

A migration "virginia -> taiwan" starts a new destination QEMU, migrates, quits the source
(left in postmigrate); the next one goes back the same way. Before each migration the guest
has acknowledged 3 records more than before the last one (it keeps running). At the end the
disk holds every record any console acknowledged (checked block by block).

Per migration: wall time (migrate command to destination RESUME), guest downtime (source
STOP to destination RESUME, QMP event timestamps, one host clock), QEMU's total-time and
downtime (query-migrate at the source, asked again while 7.2 reports total-time 0), RAM
bytes QEMU sent, bytes the link delivered each way.

Options (defaults in brackets):
  --migrations N      migrations each way [$MIGRATIONS]
  --rtt DURATION      emulated round-trip time [$RTT]
  --bandwidth RATE    emulated bandwidth per direction [$BANDWIDTH]
  --work DIR          sockets and console logs, removed on exit [$WORK]
  --out DIR           results: plain-qemu.csv, plain-qemu.png, summary.txt, logs/
                      [/var/tmp/migration-results/plain-qemu-<time>]
  -h, --help          this text
CSV columns: migration,from,to,wall_ms,guest_downtime_ms,qemu_total_ms,qemu_downtime_ms,ram_bytes,wan_forward_bytes,wan_backward_bytes
EOF2
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --migrations) MIGRATIONS=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    *) echo "plain-qemu.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"
[[ $MIGRATIONS =~ ^[1-9][0-9]*$ ]] || die "--migrations must be a positive number"
require_tools qemu-system-x86_64 nbdkit nbdcopy java python3
rm -rf "$WORK"
mkdir -p "$WORK" "$OUT/logs"
trap 'stop_all; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
prepare_guest
prepare_links

NBD_PORT=$(free_port)
launch nbdkit nbdkit -f -v -i 127.0.0.1 -p "$NBD_PORT" memory 64M
wait_for_line nbdkit "bound to IP address" 30
DISK="driver=nbd,node-name=records,server.type=inet,server.host=127.0.0.1,server.port=$NBD_PORT,cache.direct=on"

start_guest q0 "$DISK"
await_record 3 180
log "guest q0 is writing records (nonce $NONCE); $MIGRATIONS migration(s) each way through $RTT / $BANDWIDTH"

CSV=$OUT/plain-qemu.csv
echo "migration,from,to,wall_ms,guest_downtime_ms,qemu_total_ms,qemu_downtime_ms,ram_bytes,wan_forward_bytes,wan_backward_bytes" >"$CSV"
SITES=(virginia taiwan)
for ((i = 1; i <= 2 * MIGRATIONS; i++)); do
  src=q$((i - 1)) dst=q$i from=${SITES[(i - 1) % 2]} to=${SITES[i % 2]}
  await_record $(($(last_record) + 3)) 60
  in_port=$(free_port)
  start_guest "$dst" "$DISK" -incoming "tcp:127.0.0.1:$in_port"
  link_port=$(free_port)
  start_link "link$i" "$link_port" "$in_port"
  result=$(python3 "$HERE/qmp_migrate.py" plain "$WORK/$src/qmp.sock" "$WORK/$dst/qmp.sock" "tcp:127.0.0.1:$link_port") ||
    die "migration $i failed"
  stop "link$i"
  read -r fwd back < <(link_bytes "link$i")
  stop "$src"
  row="$i,$from,$to,$(json_fields wall_ms guest_downtime_ms qemu_total_ms qemu_downtime_ms ram_bytes <<<"$result"),$fwd,$back"
  echo "$row" >>"$CSV"
  log "  $row"
done

await_record $(($(last_record) + 3)) 60
stop "q$((2 * MIGRATIONS))"
nbdcopy "nbd://127.0.0.1:$NBD_PORT" "$WORK/disk.img"
check_records "$WORK/disk.img"
stop nbdkit

ensure_gnuplot
{
  echo "Plain QEMU migration of the records guest, $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "link $RTT RTT / $BANDWIDTH, $(qemu-system-x86_64 --version | head -n 1), disk on one nbdkit (not migrated)"
  echo "records: 0..$(last_record) acknowledged and all on the disk"
  echo
  python3 "$HERE/migration_report.py" plain-qemu "$CSV" "$OUT/plain-qemu.png"
} | tee "$OUT/summary.txt"
log "results in $OUT (plain-qemu.csv, plain-qemu.png, summary.txt, logs/)"
