#!/usr/bin/env bash
# Baseline: QEMU's own storage migration, as libvirt's --copy-storage-all: the records
# guest's 1 GiB raw disk mirrored to the destination QEMU's NBD server and its RAM migrated,
# both through the emulated WAN. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

MIGRATIONS=5
SIZE=1G
REWRITE_PERCENT=10
RTT=75ms
BANDWIDTH=1gbit
WORK=/var/tmp/migration-drive-mirror
OUT=/var/tmp/migration-results/drive-mirror-$(date +%Y%m%d-%H%M%S)
CHUNK=65536

usage() {
  cat <<EOF2
Usage: benchmarks/migration/drive-mirror.sh [options]

The storage-migration baseline of issue #21: the records guest (it-tests/src/test/guest)
on a --size raw disk of random data that both sites hold, --rewrite percent of it rewritten
at the source since (random 64 KiB chunks), moved the way libvirt's 'virsh migrate --live
--copy-storage-all' moves it on QEMU 7.2:
  destination  started with -S -incoming tcp:..., 'late-block-activate'; exports its copy
               of the disk with nbd-server-start + nbd-server-add (writable)
  source       blockdev-add of an NBD client to that export, blockdev-mirror sync=full;
               at BLOCK_JOB_READY 'migrate' with pause-before-switchover; at pre-switchover
               block-job-cancel (a READY job finishes with the target consistent),
               migrate-continue
  destination  on completed: nbd-server-stop, cont
The NBD export and the migration stream each go through an emulated link (WanProxyMain,
RTT/2 each way, --bandwidth, 6 MiB window; the two overlap only while the mirror is READY
and RAM is copied), fresh links per migration so their byte counts are that migration's.

sync=full, as --copy-storage-all does: QEMU's mirror has no way to learn which blocks the
destination already holds (it only skips what reads as zeroes at the target), so the whole
disk crosses the link although 90% of it is already there. The only incremental mode,
--copy-storage-inc (sync=top), needs the shared data as a backing file under a qcow2
overlay at both sites, not a raw disk.

Each migration starts from the same state: the destination's file a copy of the original
random data, the source's a copy of it with the rewrites; the guest boots at the source and
acknowledges 3 records, then the migration runs; afterwards the destination's guest
acknowledges 3 more. Checked each time: every acknowledged record is in the destination's
file, and past the records area (64 MiB) it equals the source's (cmp). "virginia ->
taiwan" and back are the same machinery, labels on a symmetric link.

Per migration: total (start of the mirror to the destination's RESUME), mirror READY,
guest downtime (source STOP to destination RESUME, QMP timestamps), QEMU's own total-time
and downtime of the RAM migration, bytes each link delivered each way (summed).

Options (defaults in brackets):
  --migrations N      migrations each way [$MIGRATIONS]
  --size SIZE         disk size [$SIZE]
  --rewrite PERCENT   part of the disk rewritten at the source [$REWRITE_PERCENT]
  --rtt DURATION      emulated round-trip time [$RTT]
  --bandwidth RATE    emulated bandwidth per direction [$BANDWIDTH]
  --work DIR          disk files (kept for the next run: the random data takes a while),
                      sockets and console logs [$WORK]
  --out DIR           results: drive-mirror.csv, drive-mirror.png, summary.txt, logs/
                      [/var/tmp/migration-results/drive-mirror-<time>]
  -h, --help          this text
CSV columns: migration,from,to,wall_ms,mirror_ready_ms,mirror_completion_ms,guest_downtime_ms,qemu_total_ms,qemu_downtime_ms,ram_bytes,wan_forward_bytes,wan_backward_bytes,nbd_forward_bytes,nbd_backward_bytes
EOF2
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --migrations) MIGRATIONS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --rewrite) REWRITE_PERCENT=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    *) echo "drive-mirror.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"
[[ $MIGRATIONS =~ ^[1-9][0-9]*$ ]] || die "--migrations must be a positive number"
[[ $REWRITE_PERCENT =~ ^[0-9]+$ ]] && ((REWRITE_PERCENT <= 100)) || die "--rewrite must be 0..100"
SIZE_BYTES=$(size_bytes "$SIZE")
RECORDS_AREA=$((64 << 20))
((SIZE_BYTES > RECORDS_AREA)) || die "--size must be more than the 64 MiB records area"
require_tools qemu-system-x86_64 java python3 cmp
mkdir -p "$WORK" "$OUT/logs"
trap 'stop_all; rm -rf "$WORK"/src-* "$WORK"/dst-* "$WORK"/source.img "$WORK"/destination.img' EXIT
trap 'exit 130' INT TERM
prepare_guest
prepare_links

ORIGINAL=$WORK/original-$SIZE_BYTES.img
REWRITTEN=$WORK/rewritten-$SIZE_BYTES-$REWRITE_PERCENT.img
random_file "$ORIGINAL" "$SIZE_BYTES"
if [[ ! -f $REWRITTEN ]]; then
  log "rewriting $REWRITE_PERCENT% of a copy in random $CHUNK-byte chunks"
  cp "$ORIGINAL" "$REWRITTEN.tmp"
  python3 - "$REWRITTEN.tmp" "$SIZE_BYTES" "$REWRITE_PERCENT" "$CHUNK" <<'PY'
import os, random, sys
path, size, percent, chunk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
chunks = random.Random(21).sample(range(size // chunk), size // chunk * percent // 100)
with open(path, "r+b") as f:
    for c in sorted(chunks):
        f.seek(c * chunk)
        f.write(os.urandom(chunk))
PY
  mv "$REWRITTEN.tmp" "$REWRITTEN"
fi

node() {  # the disk as the -blockdev node "records"
  echo "driver=file,node-name=records,filename=$1,cache.direct=on"
}

CSV=$OUT/drive-mirror.csv
echo "migration,from,to,wall_ms,mirror_ready_ms,mirror_completion_ms,guest_downtime_ms,qemu_total_ms,qemu_downtime_ms,ram_bytes,wan_forward_bytes,wan_backward_bytes,nbd_forward_bytes,nbd_backward_bytes" >"$CSV"
SITES=(virginia taiwan)
for ((i = 1; i <= 2 * MIGRATIONS; i++)); do
  from=${SITES[(i - 1) % 2]} to=${SITES[i % 2]}
  rm -rf "$WORK/src-$((i - 1))" "$WORK/dst-$((i - 1))"
  cp "$REWRITTEN" "$WORK/source.img"
  cp "$ORIGINAL" "$WORK/destination.img"
  start_guest "src-$i" "$(node "$WORK/source.img")"
  await_record 3 180
  in_port=$(free_port) nbd_port=$(free_port)
  start_guest "dst-$i" "$(node "$WORK/destination.img")" -S -incoming "tcp:127.0.0.1:$in_port"
  mig_link=$(free_port) nbd_link=$(free_port)
  start_link "nbd-link$i" "$nbd_link" "$nbd_port"
  start_link "mig-link$i" "$mig_link" "$in_port"
  result=$(python3 "$HERE/qmp_migrate.py" mirror "$WORK/src-$i/qmp.sock" "$WORK/dst-$i/qmp.sock" records \
    "127.0.0.1:$nbd_port" "127.0.0.1:$nbd_link" "tcp:127.0.0.1:$mig_link") || die "migration $i failed"
  stop "nbd-link$i"
  stop "mig-link$i"
  read -r nbd_fwd nbd_back < <(link_bytes "nbd-link$i")
  read -r mig_fwd mig_back < <(link_bytes "mig-link$i")
  await_record $(($(last_record) + 3)) 60
  stop "dst-$i"
  stop "src-$i"
  check_records "$WORK/destination.img"
  cmp -s -i "$RECORDS_AREA" "$WORK/source.img" "$WORK/destination.img" ||
    die "migration $i: the destination's disk differs from the source's past the records area"
  row="$i,$from,$to,$(json_fields wall_ms mirror_ready_ms mirror_completion_ms guest_downtime_ms qemu_total_ms qemu_downtime_ms ram_bytes <<<"$result")"
  row+=",$((nbd_fwd + mig_fwd)),$((nbd_back + mig_back)),$nbd_fwd,$nbd_back"
  echo "$row" >>"$CSV"
  log "  $row"
done

ensure_gnuplot
{
  echo "drive-mirror + migration (libvirt --copy-storage-all) of the records guest, $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "disk $SIZE ($SIZE_BYTES bytes) random, $REWRITE_PERCENT% rewritten at the source; link $RTT RTT / $BANDWIDTH; $(qemu-system-x86_64 --version | head -n 1)"
  echo "checked each time: acknowledged records on the destination's disk, the rest equal to the source's (cmp)"
  echo
  python3 "$HERE/migration_report.py" drive-mirror "$CSV" "$OUT/drive-mirror.png"
} | tee "$OUT/summary.txt"
log "results in $OUT (drive-mirror.csv, drive-mirror.png, summary.txt, logs/)"
