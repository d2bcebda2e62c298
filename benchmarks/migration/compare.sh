#!/usr/bin/env bash
# Issue #21's performance comparison in one run: plain-qemu.sh, drive-mirror.sh and
# heliotrope.sh one after the other with the same guest and link, then one table with
# every goal. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

MIGRATIONS=5
STORAGE_MIGRATIONS=1
SIZE=1G
REWRITE_PERCENT=10
RTT=75ms
BANDWIDTH=1gbit
OUT=/var/tmp/migration-results/compare-$(date +%Y%m%d-%H%M%S)
HELIOTROPE_ARGS=()

usage() {
  cat <<EOF2
Usage: benchmarks/migration/compare.sh [options] [-- heliotrope.sh options]

Issue #21's "performance, side by side in one run": on the same records guest (128 MiB,
TCG) and the same emulated link (--rtt, --bandwidth), one after the other:
  plain-qemu.sh    --migrations N each way: QEMU alone, disk on nbdkit (guest downtime baseline)
  drive-mirror.sh  --storage-migrations each way: libvirt's --copy-storage-all for a --size
                   disk of random data at both sites, --rewrite percent rewritten at the source
  heliotrope.sh    --migrations N each way of the records guest on 'helio up', and
                   --storage-migrations rounds of the same storage case
then one table (also compare.csv, compare.png): the handoff against its goals (virginia ->
taiwan <= 50 ms; taiwan -> virginia <= 2 RTT + 50 ms, moonshot 1 RTT + 50 ms), the guest
downtime against plain QEMU's median + Heliotrope's median handoff + 20 ms, total time
against plain QEMU's, and the storage case's total time and WAN bytes each way against
drive-mirror's. Each script's own CSV, PNG, summary and logs are in a directory of --out.

Options (defaults in brackets):
  --migrations N          records-guest migrations each way, plain QEMU and Heliotrope [$MIGRATIONS]
  --storage-migrations N  drive-mirror migrations each way and Heliotrope storage rounds [$STORAGE_MIGRATIONS]
  --size SIZE             the storage case's disk [$SIZE]
  --rewrite PERCENT       part of it rewritten at the source [$REWRITE_PERCENT]
  --rtt DURATION          emulated round-trip time [$RTT]
  --bandwidth RATE        emulated bandwidth per direction [$BANDWIDTH]
  --out DIR               results [/var/tmp/migration-results/compare-<time>]
  -h, --help              this text
After --, options for heliotrope.sh alone (e.g. --port-offset 60, --mode proactive).
EOF2
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --migrations) MIGRATIONS=$2; shift 2 ;;
    --storage-migrations) STORAGE_MIGRATIONS=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --rewrite) REWRITE_PERCENT=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    --) shift; HELIOTROPE_ARGS=("$@"); break ;;
    *) echo "compare.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done
[[ $MIGRATIONS =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: --migrations must be a positive number" >&2; exit 1; }
[[ $STORAGE_MIGRATIONS =~ ^[1-9][0-9]*$ ]] || { echo "compare.sh: --storage-migrations must be a positive number" >&2; exit 1; }
mkdir -p "$OUT"
LINK=(--rtt "$RTT" --bandwidth "$BANDWIDTH")

"$HERE/plain-qemu.sh" --migrations "$MIGRATIONS" "${LINK[@]}" --out "$OUT/plain-qemu"
"$HERE/drive-mirror.sh" --migrations "$STORAGE_MIGRATIONS" --size "$SIZE" --rewrite "$REWRITE_PERCENT" "${LINK[@]}" \
  --out "$OUT/drive-mirror"
"$HERE/heliotrope.sh" --migrations "$MIGRATIONS" --storage-migrations "$STORAGE_MIGRATIONS" --size "$SIZE" \
  --rewrite "$REWRITE_PERCENT" "${LINK[@]}" --out "$OUT/heliotrope" "${HELIOTROPE_ARGS[@]}"

{
  echo "issue #21, side by side: $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "link $RTT RTT / $BANDWIDTH; $MIGRATIONS records-guest migrations each way; storage: $SIZE, $REWRITE_PERCENT% rewritten, drive-mirror $STORAGE_MIGRATIONS each way, Heliotrope $STORAGE_MIGRATIONS virginia -> taiwan"
  echo
  python3 "$HERE/migration_report.py" compare "$OUT" "$RTT"
} | tee "$OUT/summary.txt"
echo "results in $OUT (summary.txt, compare.csv, compare.png; plain-qemu/, drive-mirror/, heliotrope/)" >&2
