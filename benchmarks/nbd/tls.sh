#!/usr/bin/env bash
# NBD over TLS beside plaintext, for our site and for nbdkit, with the same disk, client and
# certificates (made by `helio cert`): fio --ioengine=nbd (libnbd; fio does not let a URI name
# a certificate directory, so its nbds:// URIs find them where libnbd looks by default:
# $HOME/.pki/libnbd, for a user other than root, who gets /etc/pki/libnbd only; every client
# therefore runs as nobody with HOME=$WORK/home), 4 KiB
# random reads and writes at QD32 and 1 MiB sequential at QD8, rounds alternated between the
# four targets. Prints each target's median, each server's TLS/plain ratio, ours/nbdkit over
# TLS, and the cipher each server negotiated.
#   SIZE=1G RUNTIME=10 ROUNDS=3 JOBS="randread-4k randwrite-4k seqread-1m seqwrite-1m"
#   WORK=/var/tmp/nbd-tls (on the disk) BASE_PORT=10950
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SIZE=${SIZE:-1G}
RUNTIME=${RUNTIME:-10}
ROUNDS=${ROUNDS:-3}
JOBS=${JOBS:-randread-4k randwrite-4k seqread-1m seqwrite-1m}
WORK=${WORK:-/var/tmp/nbd-tls}
BASE_PORT=${BASE_PORT:-10950}
OUT=${OUT:-$WORK/results-$(date +%Y%m%d-%H%M%S)}
TARGETS="helio-plain helio-tls nbdkit-plain nbdkit-tls"

if [[ ${1:-} == --help ]]; then sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0; fi
for tool in fio nbdkit nbdcopy nbdinfo python3; do
  command -v "$tool" >/dev/null || { echo "tls.sh: $tool is missing (bin/install-packages fio nbdkit libnbd-bin)" >&2; exit 1; }
done

say() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
declare -a SERVERS=()
stop_all() { local pid; for pid in "${SERVERS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done; }
trap stop_all EXIT

rm -rf "$WORK/certs" "$WORK/helio" "$WORK/nbdkit.img" "$WORK/home"
mkdir -p "$OUT" "$WORK/home/.pki"
CERTS=$WORK/certs
"$REPO/bin/helio" cert init --ca "$CERTS/ca" >/dev/null
"$REPO/bin/helio" cert issue-site bench-site --ip 127.0.0.1 --ca "$CERTS/ca" --out "$CERTS/site" >/dev/null
"$REPO/bin/helio" cert issue-operator bench --role admin --ca "$CERTS/ca" --out "$CERTS/client" >/dev/null
cp -r "$CERTS/client" "$WORK/home/.pki/libnbd"
chown -R nobody "$WORK/home"

HELIO_PORT=$BASE_PORT
NBDKIT_PORT=$((BASE_PORT + 1))
NBDKIT_TLS_PORT=$((BASE_PORT + 2))
declare -A URI=(
  [helio-plain]="nbd://127.0.0.1:$HELIO_PORT/bench" [helio-tls]="nbds://127.0.0.1:$HELIO_PORT/bench"
  [nbdkit-plain]="nbd://127.0.0.1:$NBDKIT_PORT/" [nbdkit-tls]="nbds://127.0.0.1:$NBDKIT_TLS_PORT/")

serve() { # name command...
  local name=$1; shift
  setsid "$@" </dev/null >"$OUT/$name.log" 2>&1 &
  SERVERS+=($!)
}
serve helio "$REPO/bin/helio" serve --store rocksdb --data-dir "$WORK/helio" --nbd-port "$HELIO_PORT" --grpc-port 0 --metrics-port 0 \
  --migration-port $((BASE_PORT + 10)) --create-image "bench=$SIZE" --tls on --tls-dir "$CERTS/site"
truncate -s "$SIZE" "$WORK/nbdkit.img"
serve nbdkit-plain nbdkit -f -p "$NBDKIT_PORT" file "$WORK/nbdkit.img"
serve nbdkit-tls nbdkit -f -p "$NBDKIT_TLS_PORT" --tls=require --tls-certificates="$CERTS/site" --tls-verify-peer file "$WORK/nbdkit.img"

with_certs() { setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$WORK/home" "$@"; }
for target in helio-plain nbdkit-plain nbdkit-tls; do
  deadline=$((SECONDS + 120))
  until with_certs nbdinfo --size "${URI[$target]}" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || { say "$target does not answer; see $OUT"; exit 1; }
    sleep 0.5
  done
done

say "writing the $SIZE image once into both exports, as a user imports one before running"
fio --name=fill --ioengine=nbd --uri="${URI[helio-plain]}" --rw=write --bs=1M --iodepth=8 --size="$SIZE" >/dev/null
fio --name=fill --ioengine=nbd --uri="${URI[nbdkit-plain]}" --rw=write --bs=1M --iodepth=8 --size="$SIZE" >/dev/null

for server in helio nbdkit; do
  cipher=$(with_certs env LIBNBD_DEBUG=1 nbdinfo "${URI[$server-tls]}" 2>&1 | grep -o 'connection is using TLS: .*' | head -1)
  echo "$server: ${cipher:-no TLS?}" | tee -a "$OUT/ciphers.txt" >&2
done

job_args() {
  case $1 in
    randread-4k) echo "--rw=randread --bs=4k --iodepth=32" ;;
    randwrite-4k) echo "--rw=randwrite --bs=4k --iodepth=32" ;;
    seqread-1m) echo "--rw=read --bs=1M --iodepth=8" ;;
    seqwrite-1m) echo "--rw=write --bs=1M --iodepth=8" ;;
    *) say "unknown job $1"; exit 1 ;;
  esac
}

echo "job,target,round,iops,mb_per_s" >"$OUT/results.csv"
for ((round = 1; round <= ROUNDS; round++)); do
  for job in $JOBS; do
    for target in $TARGETS; do
      # shellcheck disable=SC2046
      with_certs fio --name="$job" --ioengine=nbd --uri="${URI[$target]}" $(job_args "$job") --size="$SIZE" \
        --time_based --runtime="$RUNTIME" --ramp_time=1 --output-format=json >"$OUT/$job-$target-$round.json"
      python3 - "$OUT/$job-$target-$round.json" "$job" "$target" "$round" >>"$OUT/results.csv" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
job = json.loads(text[text.index("{"):])["jobs"][0]  # after fio's nbd engine's "connected" line
side = job["read"] if job["read"]["io_bytes"] else job["write"]
print(f"{sys.argv[2]},{sys.argv[3]},{sys.argv[4]},{side['iops']:.0f},{side['bw_bytes'] / 1e6:.1f}")
EOF
      say "  r$round $job $target: $(tail -1 "$OUT/results.csv" | cut -d, -f4,5)"
    done
  done
done

python3 - "$OUT/results.csv" <<'EOF' | tee "$OUT/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
median = {}
for job in dict.fromkeys(r["job"] for r in rows):
    for target in ("helio-plain", "helio-tls", "nbdkit-plain", "nbdkit-tls"):
        values = [float(r["mb_per_s"] if job.startswith("seq") else r["iops"]) for r in rows if r["job"] == job and r["target"] == target]
        median[job, target] = statistics.median(values)
print(f"{'job':<14}{'unit':>6}{'helio':>10}{'helio tls':>11}{'nbdkit':>10}{'nbdkit tls':>12}{'ours tls/plain':>16}{'nbdkit tls/plain':>18}{'tls ours/nbdkit':>17}")
for job in dict.fromkeys(r["job"] for r in rows):
    m = [median[job, t] for t in ("helio-plain", "helio-tls", "nbdkit-plain", "nbdkit-tls")]
    print(f"{job:<14}{'MB/s' if job.startswith('seq') else 'IOPS':>6}{m[0]:>10.0f}{m[1]:>11.0f}{m[2]:>10.0f}{m[3]:>12.0f}"
          f"{m[1] / m[0]:>16.2f}{m[3] / m[2]:>18.2f}{m[1] / m[3]:>17.2f}")
EOF
cat "$OUT/ciphers.txt"
say "results in $OUT"
