#!/usr/bin/env bash
# Heliotrope's side of issue #21's performance goals: the records guest moved by
# `helio vm migrate` between the two sites of `helio up`, and a 1 GiB disk current at both
# sites with part of it rewritten at the source. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HELIO=$REPO/bin/helio

MIGRATIONS=5
STORAGE_MIGRATIONS=1
SIZE=1G
REWRITE_PERCENT=10
MODE=on-demand
RTT=75ms
BANDWIDTH=1gbit
PORT_OFFSET=50
WORK=/var/tmp/migration-heliotrope
OUT=/var/tmp/migration-results/heliotrope-$(date +%Y%m%d-%H%M%S)
CHUNK=65536

usage() {
  cat <<EOF2
Usage: benchmarks/migration/heliotrope.sh [options]

Heliotrope's numbers for issue #21, on 'helio up' (virginia and taiwan, --rtt and
--bandwidth between them, the migration driver in-process at virginia beside the
controller, taiwan's calls to the controller across the WAN):

1. Handoff and guest downtime: the records guest (it-tests/src/test/guest, 128 MiB, TCG)
   as VM 'rec' at virginia, its records disk a 64 MiB image homed there, moved
   --migrations times each way with 'helio vm migrate rec --to SITE --json'; before each
   move it has acknowledged 3 more records. Per migration from the result (the
   controller's MigrationRecord): total, guest downtime (source STOP to destination
   RESUME), handoff (source pre-switchover to device), RAM and storage bytes; and the
   sites' peer (storage) bytes each way across the move, from their /metrics. At the end
   every acknowledged record is on the disk, read at taiwan and at virginia.
2. Storage (skipped with --storage-migrations 0): an image of --size written with random
   data at virginia, read in full at taiwan (so taiwan holds all of it), then --rewrite
   percent rewritten at virginia in random 64 KiB chunks (nbdcopy of a sparse file of the
   new chunks, so only they are written); VM 'bulk' (the records guest, its records on a
   64 MiB image, the big image its second disk) started at virginia and moved to taiwan.
   Measured as above; the WAN bytes are the peer bytes plus the RAM QEMU sent. Then 'bulk'
   moves back (not counted) and stops, so the next round starts from the same state. At the
   end taiwan's copy of the image equals the expected data (cmp) and the records are there.
   The image's mode is --mode: on-demand pushes nothing in the background, so the
   rewritten blocks cross during the migration (the boost); with proactive they may have
   crossed before it (the window then misses them).

Goals printed beside the numbers: handoff virginia -> taiwan <= 50 ms, taiwan -> virginia
<= 2 RTT + 50 ms (moonshot 1 RTT + 50 ms). Guest downtime against plain QEMU and storage
against drive-mirror: compare.sh runs all three and prints them side by side.

Options (defaults in brackets):
  --migrations N          records-guest migrations each way (0: none) [$MIGRATIONS]
  --storage-migrations N  rounds of the storage case [$STORAGE_MIGRATIONS]
  --size SIZE             the storage case's image [$SIZE]
  --rewrite PERCENT       part of it rewritten at virginia before each round [$REWRITE_PERCENT]
  --mode MODE             its replication mode [$MODE]
  --rtt DURATION          emulated round-trip time [$RTT]
  --bandwidth RATE        emulated bandwidth per direction [$BANDWIDTH]
  --port-offset N         helio up's ports are its defaults plus N (controller 7400+N, gRPC
                          7410+N, metrics 9410+N, NBD 10809+N, status 7480+N, migration
                          7420+N..; taiwan's one more, or 4 more for migration) [$PORT_OFFSET]
  --work DIR              helio up's data directory, the random data (kept for the next run),
                          scratch [$WORK]
  --out DIR               results: heliotrope.csv, heliotrope-storage.csv, heliotrope.png,
                          summary.txt, logs/ [/var/tmp/migration-results/heliotrope-<time>]
  -h, --help              this text
CSV columns (both files): migration,from,to,outcome,total_ms,guest_downtime_ms,handoff_ms,ram_bytes,storage_pushed_bytes,storage_fetched_bytes,peer_forward_bytes,peer_backward_bytes,wan_forward_bytes,wan_backward_bytes
(peer: the sites' storage traffic; wan: peer bytes plus RAM forward; forward is source to destination)
EOF2
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --migrations) MIGRATIONS=$2; shift 2 ;;
    --storage-migrations) STORAGE_MIGRATIONS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --rewrite) REWRITE_PERCENT=$2; shift 2 ;;
    --mode) MODE=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    *) echo "heliotrope.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"
[[ $MIGRATIONS =~ ^[0-9]+$ ]] || die "--migrations must be a number"
[[ $STORAGE_MIGRATIONS =~ ^[0-9]+$ ]] || die "--storage-migrations must be a number"
((MIGRATIONS + STORAGE_MIGRATIONS > 0)) || die "nothing to do: --migrations and --storage-migrations are both 0"
[[ $REWRITE_PERCENT =~ ^[0-9]+$ ]] && ((REWRITE_PERCENT <= 100)) || die "--rewrite must be 0..100"
[[ $PORT_OFFSET =~ ^[0-9]+$ ]] || die "--port-offset must be a number"
SIZE_BYTES=$(size_bytes "$SIZE")
require_tools qemu-system-x86_64 nbdcopy java python3 curl cmp

mkdir -p "$OUT/logs"
prepare_guest   # the records guest its VMs boot
start_up_with_vms
METRICS_URL_V=http://127.0.0.1:$METRICS_V/metrics METRICS_URL_T=http://127.0.0.1:$METRICS_T/metrics


# peer_bytes: the sites' peer bytes so far: virginia's sent to and received from taiwan,
# then taiwan's sent to and received from virginia.
peer_bytes() {
  echo "$(metric "$METRICS_URL_V" heliotrope_peer_bytes_total 'direction="sent",peer="taiwan"')" \
    "$(metric "$METRICS_URL_V" heliotrope_peer_bytes_total 'direction="received",peer="taiwan"')" \
    "$(metric "$METRICS_URL_T" heliotrope_peer_bytes_total 'direction="sent",peer="virginia"')" \
    "$(metric "$METRICS_URL_T" heliotrope_peer_bytes_total 'direction="received",peer="virginia"')"
}

max() { echo $(($1 > $2 ? $1 : $2)); }

# migrate VM TO: one 'helio vm migrate --json'; prints its CSV row from "outcome" on. The
# peer bytes of a direction are the larger of the two sites' counts (each site counts the
# messages of the calls it makes, and of the peer calls it serves).
migrate() {
  local vm=$1 to=$2 before after result v_sent v_recv t_sent t_recv fwd back
  read -r -a before < <(peer_bytes)
  result=$(helio vm migrate "$vm" --to "$to" --json 2>>"$OUT/logs/migrate.log") ||
    die "vm migrate $vm --to $to did not complete: $result"
  read -r -a after < <(peer_bytes)
  echo "$result" >>"$OUT/logs/records.jsonl"
  v_sent=$((after[0] - before[0])) v_recv=$((after[1] - before[1]))
  t_sent=$((after[2] - before[2])) t_recv=$((after[3] - before[3]))
  if [[ $to == taiwan ]]; then
    fwd=$(max "$v_sent" "$t_recv") back=$(max "$v_recv" "$t_sent")
  else
    fwd=$(max "$t_sent" "$v_recv") back=$(max "$t_recv" "$v_sent")
  fi
  python3 -c '
import json, sys
r = json.loads(sys.argv[1])
ms = lambda k: f"{int(r.get(k, 0)) / 1000:.1f}"
fwd, back, ram = int(sys.argv[2]), int(sys.argv[3]), int(r.get("ramBytes", 0))
print(",".join([r["outcome"].replace("MIGRATION_OUTCOME_", "").lower(), ms("totalMicros"), ms("downtimeMicros"),
                ms("handoffMicros"), str(ram), str(r.get("storagePushedBytes", 0)), str(r.get("storageFetchedBytes", 0)),
                str(fwd), str(back), str(fwd + ram), str(back)]))' "$result" "$fwd" "$back"
}



COLUMNS=migration,from,to,outcome,total_ms,guest_downtime_ms,handoff_ms,ram_bytes,storage_pushed_bytes,storage_fetched_bytes,peer_forward_bytes,peer_backward_bytes,wan_forward_bytes,wan_backward_bytes
CSV=$OUT/heliotrope.csv
STORAGE_CSV=$OUT/heliotrope-storage.csv

if ((MIGRATIONS > 0)); then
  echo "$COLUMNS" >"$CSV"
  helio image create rec --size 64M --home virginia >&2
  start_vm rec rec
  log "VM rec is writing records (nonce $NONCE); $MIGRATIONS migration(s) each way through $RTT / $BANDWIDTH"
  for ((i = 1; i <= 2 * MIGRATIONS; i++)); do
    from=${SITES[(i - 1) % 2]} to=${SITES[i % 2]}
    await_record $(($(last_record) + 3)) 60
    row="$i,$from,$to,$(migrate rec "$to")"
    echo "$row" >>"$CSV"
    log "  $row"
  done
  await_record $(($(last_record) + 3)) 60
  helio vm stop rec >&2
  verify_records rec taiwan
  verify_records rec virginia
fi

# rewrite EXPECTED DELTA SEED: PERCENT of EXPECTED rewritten in random CHUNK-byte chunks of
# random data; DELTA a sparse file holding only them, for nbdcopy --destination-is-zero.
rewrite() {
  python3 - "$1" "$2" "$3" "$SIZE_BYTES" "$REWRITE_PERCENT" "$CHUNK" <<'PY'
import os, random, sys
expected, delta, seed, size, percent, chunk = sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(int, sys.argv[4:])
chunks = random.Random(seed).sample(range(size // chunk), size // chunk * percent // 100)
with open(expected, "r+b") as e, open(delta, "wb") as d:
    d.truncate(size)
    for c in sorted(chunks):
        data = os.urandom(chunk)
        for f in (e, d):
            f.seek(c * chunk)
            f.write(data)
PY
}

if ((STORAGE_MIGRATIONS > 0)); then
  echo "$COLUMNS" >"$STORAGE_CSV"
  ORIGINAL=$WORK/original-$SIZE_BYTES.img EXPECTED=$WORK/scratch/expected.img DELTA=$WORK/scratch/delta.img
  random_file "$ORIGINAL" "$SIZE_BYTES"
  cp "$ORIGINAL" "$EXPECTED"
  helio image create big --size "$SIZE" --home virginia --mode "$MODE" >&2
  helio image create bulkrec --size 64M --home virginia >&2
  log "big: $SIZE of random data written at virginia, then read in full at taiwan ($MODE)"
  nbdcopy "$ORIGINAL" "nbd://127.0.0.1:$NBD_V/big"
  nbdcopy "nbd://127.0.0.1:$NBD_T/big" null:
  helio vm create bulk --site virginia --disk bulkrec --disk big --memory 128M --kernel "$GUEST_DIR/vmlinuz" \
    --initrd "$GUEST_DIR/records-initrd.img" --append "console=ttyS0 panic=-1 quiet helio.nonce=$NONCE" >&2
  CONSOLES="$DATA/*/vms/bulk/console.log"
  for ((i = 1; i <= STORAGE_MIGRATIONS; i++)); do
    log "round $i: $REWRITE_PERCENT% of big rewritten at virginia, VM bulk moved to taiwan"
    rewrite "$EXPECTED" "$DELTA" "$((21 + i))"
    nbdcopy --destination-is-zero "$DELTA" "nbd://127.0.0.1:$NBD_V/big"
    rm -f "$DATA"/*/vms/bulk/console.log   # the runners append; a new boot counts from record 0 again
    helio vm start bulk >&2
    await_record $(($(last_record) + 3)) 180
    row="$i,virginia,taiwan,$(migrate bulk taiwan)"
    echo "$row" >>"$STORAGE_CSV"
    log "  $row"
    await_record $(($(last_record) + 3)) 60
    migrate bulk virginia >/dev/null
    await_record $(($(last_record) + 3)) 60
    helio vm stop bulk >&2
  done
  nbdcopy "nbd://127.0.0.1:$NBD_T/big" - | cmp - "$EXPECTED" ||
    die "big read at taiwan differs from the data written at virginia"
  log "big read at taiwan equals the data written at virginia"
  verify_records bulkrec taiwan
fi

ensure_gnuplot
{
  echo "Heliotrope live migration of the records guest (helio up), $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "link $RTT RTT / $BANDWIDTH, $(qemu-system-x86_64 --version | head -n 1), the driver at virginia"
  echo "checked: every acknowledged record on the disks (rec read at both sites, bulkrec at taiwan); big read at taiwan equals what was written"
  echo
  python3 "$HERE/migration_report.py" heliotrope "$OUT" "$RTT"
} | tee "$OUT/summary.txt"
log "results in $OUT (heliotrope.csv, heliotrope-storage.csv, heliotrope.png, summary.txt, logs/)"
