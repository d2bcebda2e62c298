#!/usr/bin/env bash
# Smoke test of the DBENCH guest on a plain nbdkit disk. Run with --help.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

usage() {
  cat <<USAGE
usage: $0 [--out DIR] [--guest DIR] [--time SECONDS] [--clients N] [--memory SIZE]

Builds the DBENCH guest (build.sh into --guest), boots it (TCG, 1 vCPU, 512 MiB) on
'nbdkit file' of a copy of root.img (with nbdkit's stats filter), sends go, waits for
dbench's end, quits QEMU over QMP and runs e2fsck -fn on the copy. Writes into --out:
console.csv (every console line with host timestamps), console.log (QEMU's own log),
nbdkit-stats.txt (bytes read and written by the guest), summary.txt.

  --out DIR       [/var/tmp/dguest-smoke]
  --guest DIR     build.sh's OUTDIR [/var/tmp/dguest-out]
  --time SECONDS  helio.dbench_time [20]
  --clients N     helio.dbench_clients [4]
  --memory SIZE   helio.dbench_memory, e.g. 28M [none: dbench may use all the page cache]
USAGE
}

OUT=/var/tmp/dguest-smoke GUEST=/var/tmp/dguest-out TIME=20 CLIENTS=4 MEMORY=
while (($#)); do
  case $1 in
    --out) OUT=$2; shift 2 ;;
    --guest) GUEST=$2; shift 2 ;;
    --time) TIME=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --memory) MEMORY=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done

# shellcheck source=../geo/lib.sh
source "$HERE/../geo/lib.sh"
remove_tree "$OUT" && mkdir -p "$OUT/logs"
trap stop_all EXIT
trap 'exit 130' INT TERM

started=$SECONDS
"$HERE/build.sh" "$GUEST" 2>"$OUT/logs/build.log" || die "build.sh failed (see $OUT/logs/build.log)"
log "guest built in $((SECONDS - started)) s"

cp --sparse=always "$GUEST/root.img" "$OUT/run.img"
port=$(free_port)
launch nbdkit nbdkit -f -i 127.0.0.1 -p "$port" --filter=stats file "$OUT/run.img" \
  statsfile="$OUT/nbdkit-stats.txt"
until port_in_use "$port"; do alive "${PID[nbdkit]}" || die "nbdkit exited"; sleep 0.1; done

launch qemu qemu-system-x86_64 -machine q35,accel=tcg -m 512 -smp 1 -display none -no-reboot -nic none \
  -kernel "$GUEST/vmlinuz" -initrd "$GUEST/initrd.img" \
  -append "console=ttyS0 panic=-1 quiet helio.dbench_time=$TIME helio.dbench_clients=$CLIENTS${MEMORY:+ helio.dbench_memory=$MEMORY}" \
  -blockdev "driver=nbd,node-name=root,server.type=inet,server.host=127.0.0.1,server.port=$port,cache.direct=on" \
  -device virtio-blk-pci,drive=root \
  -chardev "socket,id=console,path=$OUT/console.sock,server=on,wait=off,logfile=$OUT/console.log" \
  -serial chardev:console -qmp "unix:$OUT/qmp.sock,server=on,wait=off"

python3 "$HERE/console.py" "$OUT/console.sock" --log "$OUT/console.csv" --run-timeout $((TIME * 5 + 120)) |
  tee "$OUT/summary.txt"

python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from qmp_migrate import Qmp; Qmp(sys.argv[2], "guest").execute("quit")' \
  "$HERE/../migration" "$OUT/qmp.sock" || true
stop qemu
stop nbdkit   # writes nbdkit-stats.txt
grep -E '^(read|write|flush|zero|trim):' "$OUT/nbdkit-stats.txt" | tee -a "$OUT/summary.txt"
e2fsck -fn "$OUT/run.img" >"$OUT/logs/e2fsck.log" 2>&1 || die "e2fsck -fn found problems (see $OUT/logs/e2fsck.log)"
echo "e2fsck -fn: clean" | tee -a "$OUT/summary.txt"
