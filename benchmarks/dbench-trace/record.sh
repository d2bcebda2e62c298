#!/usr/bin/env bash
# Records the block trace of a dbench run on ext4 over NBD. Run with --help.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

SIZE=${SIZE:-1G}
CLIENTS=${CLIENTS:-4}
DURATION=${DURATION:-20}
LOADFILE=${LOADFILE:-/usr/share/dbench/client.txt}
CONNECTIONS=${CONNECTIONS:-4}
GUEST_MEMORY=${GUEST_MEMORY:-28M}
UPSTREAM=${UPSTREAM:-}
WORK=${WORK:-/var/tmp/dbench-trace-record}
OUT=${OUT:-$HERE/dbench-4c.trace.csv.xz}
MKFS_OPTS=${MKFS_OPTS:--q -F -E lazy_itable_init=0,lazy_journal_init=0}

usage() {
  cat <<EOF
Usage: benchmarks/dbench-trace/record.sh [--help]

Records every NBD request of a dbench run on ext4 and writes the block trace that
replay.sh replays (format in README.md). The stack, from the top:

  dbench -t \$DURATION \$CLIENTS      in a memory cgroup of \$GUEST_MEMORY (the guest's RAM:
                                    without it the page cache holds the whole working set
                                    and almost no read reaches the disk)
  ext4 (mkfs.ext4 $MKFS_OPTS)
  loop device (losetup --direct-io=on: no second page cache under ext4's)
  nbdfuse -C \$CONNECTIONS           the export as a file; \$CONNECTIONS NBD connections
  nbdkit --filter=log               logs every request: time, connection, type, offset,
                                    length, flags, and its reply
  nbdkit memory size=\$SIZE          (or, with UPSTREAM=nbd://..., nbdkit's nbd plugin
                                    in front of that export, e.g. a Heliotrope image)

The trace starts with the setup (the discard, mkfs and mount, at negative times), then
dbench from time 0, then the final sync and umount. Needs root, /dev/fuse, a free loop
device, cgroup v1 memory controller, nbdkit, nbdfuse, dbench and mkfs.ext4.

Environment (defaults in brackets):
  SIZE          export size [$SIZE]
  CLIENTS       dbench clients [$CLIENTS]
  DURATION      dbench -t, seconds [$DURATION]
  LOADFILE      dbench -c [$LOADFILE]
  CONNECTIONS   nbdfuse -C: NBD connections [$CONNECTIONS]
  GUEST_MEMORY  memory limit of dbench's cgroup, '' for none [$GUEST_MEMORY]
  UPSTREAM      NBD URI the logging nbdkit forwards to instead of its memory plugin []
  WORK          scratch directory, removed at the end unless KEEP_WORK=1 [$WORK]
  OUT           the trace [$OUT]
EOF
}
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }
(($# == 0)) || { usage >&2; exit 1; }

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
die() { log "$*"; exit 1; }

((EUID == 0)) || die "needs root (losetup, mount, cgroups)"
[[ -c /dev/fuse ]] || die "no /dev/fuse"
for c in nbdkit nbdfuse fusermount3 dbench mkfs.ext4 losetup mount umount python3; do
  command -v "$c" >/dev/null || die "$c not installed (bin/install-packages nbdkit libnbd-bin fuse3 dbench e2fsprogs)"
done
[[ -r $LOADFILE ]] || die "no dbench load file $LOADFILE"
SIZE_BYTES=$(numfmt --from=iec "$SIZE")

NBDKIT_PID='' FUSE_PID='' LOOP='' CGROUP=''
alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }
is_mounted() { awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo; }

cleanup() {
  local i
  set +e
  is_mounted "$WORK/mnt" && { umount "$WORK/mnt" || umount -l "$WORK/mnt"; }
  [[ -n $LOOP ]] && losetup -d "$LOOP"
  if [[ -n $FUSE_PID ]]; then
    for ((i = 0; i < 50; i++)); do
      is_mounted "$WORK/fuse" || break
      fusermount3 -u "$WORK/fuse" 2>/dev/null && break
      sleep 0.2
    done
    for ((i = 0; i < 50; i++)); do alive "$FUSE_PID" || break; sleep 0.2; done
    alive "$FUSE_PID" && kill -TERM "$FUSE_PID"
  fi
  if alive "$NBDKIT_PID"; then
    kill -TERM "$NBDKIT_PID"
    for ((i = 0; i < 50; i++)); do alive "$NBDKIT_PID" || break; sleep 0.1; done
  fi
  [[ -n $CGROUP && -d $CGROUP ]] && rmdir "$CGROUP"
  [[ ${KEEP_WORK:-0} == 1 ]] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Markers in the log filter's own time format (same clock, same zone).
mark() { printf '%s %s\n' "$1" "$(date '+%Y-%m-%d %H:%M:%S.%6N')" >>"$WORK/markers"; }

rm -rf "$WORK"
mkdir -p "$WORK/fuse" "$WORK/mnt"
: >"$WORK/markers"

if [[ -n $UPSTREAM ]]; then
  plugin=(nbd "uri=$UPSTREAM"); server="nbdkit nbd plugin -> $UPSTREAM"
else
  plugin=(memory "size=$SIZE_BYTES"); server="nbdkit memory"
fi
log "nbdkit --filter=log ${plugin[*]}"
setsid nbdkit -f -U "$WORK/sock" -P "$WORK/nbdkit.pid" --filter=log "${plugin[@]}" \
  logfile="$WORK/requests.log" </dev/null >"$WORK/nbdkit.out" 2>&1 &
NBDKIT_PID=$!
for ((i = 0; i < 100; i++)); do [[ -S $WORK/sock ]] && break; alive "$NBDKIT_PID" || break; sleep 0.1; done
[[ -S $WORK/sock ]] || { cat "$WORK/nbdkit.out" >&2; die "nbdkit did not start"; }

setsid nbdfuse -C "$CONNECTIONS" -P "$WORK/nbdfuse.pid" "$WORK/fuse/disk" --unix "$WORK/sock" \
  </dev/null >"$WORK/nbdfuse.out" 2>&1 &
FUSE_PID=$!
for ((i = 0; i < 100; i++)); do [[ -s $WORK/nbdfuse.pid ]] && break; alive "$FUSE_PID" || break; sleep 0.1; done
[[ -s $WORK/nbdfuse.pid ]] || { cat "$WORK/nbdfuse.out" >&2; die "nbdfuse did not start"; }

LOOP=$(losetup --direct-io=on --find --show "$WORK/fuse/disk")
log "setup: mkfs.ext4 $MKFS_OPTS $LOOP; mount"
mark setup
# shellcheck disable=SC2086  # MKFS_OPTS is a word list
mkfs.ext4 $MKFS_OPTS "$LOOP"
mount "$LOOP" "$WORK/mnt"

dbench_cmd=(dbench -c "$LOADFILE" -t "$DURATION" -D "$WORK/mnt" "$CLIENTS")
if [[ -n $GUEST_MEMORY ]]; then
  cg=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
  [[ -n $cg && -d /sys/fs/cgroup/memory$cg ]] || die "no cgroup v1 memory controller (set GUEST_MEMORY='')"
  CGROUP=/sys/fs/cgroup/memory$cg/dbench-trace-$$
  mkdir "$CGROUP"
  echo "$GUEST_MEMORY" >"$CGROUP/memory.limit_in_bytes"
fi
log "workload: ${dbench_cmd[*]}${GUEST_MEMORY:+ (memory limit $GUEST_MEMORY)}"
mark start
if [[ -n $CGROUP ]]; then
  bash -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' _ "$CGROUP" "${dbench_cmd[@]}" >"$WORK/dbench.out" 2>&1
else
  "${dbench_cmd[@]}" >"$WORK/dbench.out" 2>&1
fi
mark end
grep '^Throughput' "$WORK/dbench.out" >&2 || { tail "$WORK/dbench.out" >&2; die "dbench failed"; }
sync -f "$WORK/mnt"
umount "$WORK/mnt"
losetup -d "$LOOP"; LOOP=''
mark umount
fusermount3 -u "$WORK/fuse"
for ((i = 0; i < 50; i++)); do alive "$FUSE_PID" || break; sleep 0.2; done
kill -TERM "$NBDKIT_PID"
for ((i = 0; i < 50; i++)); do alive "$NBDKIT_PID" || break; sleep 0.1; done

log "converting $(wc -l <"$WORK/requests.log") log lines to $OUT"
PYTHONDONTWRITEBYTECODE=1 python3 "$HERE/blocktrace.py" convert "$WORK/requests.log" "$WORK/markers" "$OUT" \
  "size=$SIZE_BYTES" \
  "setup=mkfs.ext4 $MKFS_OPTS DEV; mount DEV MNT (t_us < 0)" \
  "workload=${dbench_cmd[*]/$WORK\/mnt/MNT} (from t_us=0), then sync -f MNT; umount MNT" \
  "guest_memory=${GUEST_MEMORY:-unlimited}" \
  "stack=dbench > ext4 > loop (direct-io) > nbdfuse -C $CONNECTIONS > nbdkit --filter=log > $server" \
  "recorded=$(date -Is) on $(uname -r), $(nproc) cores, $(dbench --help 2>&1 | head -1 | cut -d' ' -f1-3), $(mkfs.ext4 -V 2>&1 | head -1)" \
  "dbench_result=$(grep '^Throughput' "$WORK/dbench.out")"
ls -l "$OUT" >&2
