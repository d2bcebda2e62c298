#!/usr/bin/env bash
# Issue #22's ensemble benchmark: three records guests switched over together by
# `helio vm migrate A B C --to SITE --together`, beside the same three migrated one after
# another, on the two sites of `helio up`. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HELIO=$REPO/bin/helio

ROUNDS=3
RTT=75ms
BANDWIDTH=1gbit
PORT_OFFSET=60
WORK=/var/tmp/migration-ensemble
OUT=/var/tmp/migration-results/ensemble-$(date +%Y%m%d-%H%M%S)
VMS=(ens-1 ens-2 ens-3)

usage() {
  cat <<EOF2
Usage: benchmarks/migration/ensemble.sh [options]

Three VMs of the records guest (it-tests/src/test/guest, 128 MiB, TCG), each with its own
64 MiB records disk homed at virginia, on 'helio up' (virginia and taiwan, --rtt and
--bandwidth between them, the migration driver beside the controller). Each round moves
them to taiwan and back twice, in both ways, the order alternating between rounds:
  together:    helio vm migrate ${VMS[*]} --to SITE --together --json
  one by one:  helio vm migrate VM --to SITE --json, for each VM in turn
Before each move every guest has acknowledged 3 more records; at the end every record is
on every disk, read at virginia.

Per member: its pause (source STOP to destination RESUME, QMP timestamps) and handoff;
per move of the three: the spread between the first and the last source STOP (the time
the three are split between the sites, which a quorum spanning them would feel).

Options (defaults in brackets):
  --rounds N          rounds [$ROUNDS]
  --rtt DURATION      emulated round-trip time [$RTT]
  --bandwidth RATE    emulated bandwidth per direction [$BANDWIDTH]
  --port-offset N     helio up's ports are its defaults plus N (see heliotrope.sh) [$PORT_OFFSET]
  --work DIR          helio up's data directory and scratch [$WORK]
  --out DIR           results: ensemble.csv, ensemble.png, summary.txt, logs/
                      [/var/tmp/migration-results/ensemble-<time>]
  -h, --help          this text
CSV columns: round,way,from,to,vm,outcome,pause_ms,handoff_ms,total_ms,stop_epoch_micros,spread_ms
(spread_ms: of the move of the three the row belongs to, the same on its three rows)
EOF2
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    *) echo "ensemble.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=lib.sh
source "$HERE/lib.sh"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds must be a positive number"
[[ $PORT_OFFSET =~ ^[0-9]+$ ]] || die "--port-offset must be a number"
require_tools qemu-system-x86_64 nbdcopy java python3 curl

mkdir -p "$OUT/logs"
prepare_guest   # the records guest its VMs boot
start_up_with_vms
for vm in "${VMS[@]}"; do
  helio image create "$vm" --size 64M --home virginia >&2
  start_vm "$vm" "$vm"
done
CONSOLES="$DATA/*/vms/ens-*/console.log"

# await_each: every VM acknowledges 3 more records than it has.
await_each() {
  local vm
  for vm in "${VMS[@]}"; do
    CONSOLES="$DATA/*/vms/$vm/console.log"
    await_record $(($(last_record) + 3)) 90
  done
}

# rows ROUND WAY FROM TO: CSV rows of the JSON results on stdin (one MigrationRecord per
# line), with the spread of their source STOPs.
rows() {
  python3 -c '
import json, sys
records = [json.loads(line) for line in sys.stdin if line.strip()]
stops = [int(r.get("stopEpochMicros", 0)) for r in records]
spread = (max(stops) - min(stops)) / 1000 if all(stops) else ""
ms = lambda r, k: f"{int(r.get(k, 0)) / 1000:.1f}"
for r, stop in zip(records, stops):
    outcome = r["outcome"].replace("MIGRATION_OUTCOME_", "").lower()
    print(",".join(sys.argv[1:5] + [r["vm"], outcome, ms(r, "downtimeMicros"), ms(r, "handoffMicros"), ms(r, "totalMicros"),
                                    str(stop), "" if spread == "" else f"{spread:.1f}"]))' "$@"
}

# move WAY TO: the three VMs moved to TO, together or one by one; one JSON record per line
# on stdout, each with its VM's name added.
move() {
  local way=$1 to=$2 vm result
  if [[ $way == together ]]; then
    result=$(helio vm migrate "${VMS[@]}" --to "$to" --together --json 2>>"$OUT/logs/migrate.log") ||
      die "vm migrate --together to $to did not complete: $result"
    echo "$result" >>"$OUT/logs/ensembles.jsonl"
    python3 -c '
import json, sys
for m in json.loads(sys.argv[1])["members"]:
    print(json.dumps(dict(m["result"], vm=m["vm"])))' "$result"
  else
    for vm in "${VMS[@]}"; do
      result=$(helio vm migrate "$vm" --to "$to" --json 2>>"$OUT/logs/migrate.log") ||
        die "vm migrate $vm --to $to did not complete: $result"
      python3 -c 'import json, sys; print(json.dumps(dict(json.loads(sys.argv[1]), vm=sys.argv[2])))' "$result" "$vm"
    done
  fi
}

CSV=$OUT/ensemble.csv
echo "round,way,from,to,vm,outcome,pause_ms,handoff_ms,total_ms,stop_epoch_micros,spread_ms" >"$CSV"
log "${VMS[*]} write records (nonce $NONCE); $ROUNDS round(s) through $RTT / $BANDWIDTH"
for ((round = 1; round <= ROUNDS; round++)); do
  ways=(together one-by-one)
  ((round % 2 == 0)) && ways=(one-by-one together)
  for way in "${ways[@]}"; do
    for to in taiwan virginia; do
      from=virginia
      [[ $to == virginia ]] && from=taiwan
      await_each
      move "$way" "$to" | rows "$round" "$way" "$from" "$to" | tee -a "$CSV" | while read -r row; do log "  $row"; done
    done
  done
done
await_each
for vm in "${VMS[@]}"; do
  helio vm stop "$vm" >&2
  CONSOLES="$DATA/*/vms/$vm/console.log"
  verify_records "$vm" virginia
done

ensure_gnuplot
{
  echo "Heliotrope: three records guests switched over together vs one by one (helio up), $(date -Is) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "link $RTT RTT / $BANDWIDTH, $(qemu-system-x86_64 --version | head -n 1), the driver beside the controller"
  echo "checked: every acknowledged record of each guest on its disk, read at virginia"
  echo
  python3 "$HERE/migration_report.py" ensemble "$OUT" "$RTT"
} | tee "$OUT/summary.txt"
log "results in $OUT (ensemble.csv, ensemble.png, summary.txt, logs/)"
