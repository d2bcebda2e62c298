#!/usr/bin/env bash
# Side-by-side NBD server benchmark: Heliotrope vs nbd-server, qemu-nbd and nbdkit.
# Run with --help for the knobs.
set -uo pipefail   # no -e: one failing server or job must not abort the whole run

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

ALL_SERVERS="nbdkit-memory nbdkit-file nbd-server qemu-nbd helio-rocksdb helio-memory"
SERVERS=${SERVERS:-$ALL_SERVERS}
ROUNDS=${ROUNDS:-3}
RUNTIME=${RUNTIME:-10}
RAMP=${RAMP:-1}
SUSTAINED=${SUSTAINED:-60}
SUSTAINED_WINDOW=${SUSTAINED_WINDOW:-10}
DBENCH_TIME=${DBENCH_TIME:-20}
DBENCH_CLIENTS=${DBENCH_CLIENTS:-4}
DBENCH_LOADFILE=${DBENCH_LOADFILE:-/usr/share/dbench/client.txt}
NBDFUSE_ARGS=${NBDFUSE_ARGS:-}
PRECONDITION=${PRECONDITION:-1}
SIZE=${SIZE:-1G}
WORK=${WORK:-/var/tmp/nbd-compare}
OUT=${OUT:-/tmp/nbd-compare-$(date +%Y%m%d-%H%M%S)}
BASE_PORT=${BASE_PORT:-10900}
START_TIMEOUT=${START_TIMEOUT:-120}
# qemu-nbd's own default, on either medium: the host page cache (cache=none needs
# O_DIRECT, which tmpfs lacks, and is not what a user gets without flags).
QEMU_CACHE=${QEMU_CACHE:-writeback}
NBD_SERVER_CACHE=${NBD_SERVER_CACHE:-$HOME/.cache/heliotrope-bench/nbd-server}
# Single quotes on purpose: $PORT/$WORK/$SIZE are expanded when the command is launched.
# Nothing but the store, where it lives, the ports and the image: our defaults otherwise.
# shellcheck disable=SC2016
HELIO_ROCKSDB_CMD=${HELIO_ROCKSDB_CMD:-'exec bin/helio serve --store rocksdb --data-dir $WORK/helio-rocks --nbd-port $PORT --grpc-port 0 --metrics-port 0 --create-image $EXPORT=$SIZE'}
# shellcheck disable=SC2016
HELIO_MEMORY_CMD=${HELIO_MEMORY_CMD:-'exec bin/helio serve --store memory --nbd-port $PORT --grpc-port 0 --metrics-port 0 --create-image $EXPORT=$SIZE'}
HELIO_ARGS=${HELIO_ARGS:-}
ONLY=${ONLY:-.}
EXPORT=bench

usage() {
  cat <<EOF
Usage: benchmarks/nbd/compare.sh [--help]

Starts several NBD servers on 127.0.0.1 (one port each), each in its default
configuration with every export in \$WORK, writes the same random \$SIZE image over
NBD into every export PRECONDITION times (one pass by default: a user imports an
image, then runs), runs each job against every server round-robin (A/B/A/B, ROUNDS
times) and prints the per-server median plus ours/peer ratios.

WORK is a directory on the disk by default; WORK=/dev/shm/nbd-compare gives the
second view, every export in memory. Our site runs with no flags on either, as a
user's does (store calls on the NBD event loops, FLUSHes on threads of their own).

Jobs (fio --ioengine=nbd unless noted; "2x16" = numjobs=2, i.e. two NBD connections,
QD16 each); ONLY selects them by name:
  randread-4k-qd32, randwrite-4k-qd32, randread-4k-2x16, randwrite-4k-2x16
                        4 KiB random reads / writes over the whole export
  randread-4k-qd1       mean and p99 latency
  seqread-1m-qd8, seqwrite-1m-qd8
  hot1-qd1, hot1-qd32   4 KiB random writes confined to one block (the first)
  hot8-qd1, hot8-qd32   ... to eight blocks (the first 32 KiB)
  region1m-qd32         ... to a 1 MiB region (the first)
  nbdcopy-to-null       nbdcopy of the whole export to null: (nbdcopy's default
                        connections: 4 if the server advertises multi-conn)
  sustained-randwrite-4k-qd32
                        SUSTAINED seconds of 4 KiB random writes at QD32, once per
                        server (not per round; no ramp): the IOPS of its first and
                        last SUSTAINED_WINDOW seconds (fio's IOPS log, 1 s averages),
                        last/first (the goal is >= 0.9), and the server's RSS
                        (VmRSS of its main process) right after the job
  dbench                ext4 on the export, the same for every server: nbdfuse
                        (\$NBDFUSE_ARGS) presents the export as a file, losetup
                        attaches it, mkfs.ext4 (which discards the device first;
                        inode tables and journal written at once, so no lazy init
                        runs during the job), mount, then
                        'dbench -t \$DBENCH_TIME \$DBENCH_CLIENTS'; all of it anew in
                        every round. Needs root, /dev/fuse, a free loop device,
                        nbdfuse, fusermount3, dbench and mkfs.ext4, else it is
                        skipped with a note. MB/s as dbench reports it; "moved GiB"
                        is what reached the export (read + written on the loop device
                        until the filesystem is synced after the run).

Every job also reports "CPU s/GiB": the server's CPU seconds (utime + stime from
/proc/PID/stat of its process and its descendants, with the children they reaped,
so nbd-server's per-client processes count) per GiB the job moved: fio's io_bytes
(read + write; the CPU is counted from the end of the ramp), the whole export for
nbdcopy, and for dbench its "moved GiB". It includes whatever the server does in the
background meanwhile (compaction, garbage collection, JIT compilation).

Servers (SERVERS, space separated; missing binaries are skipped with a note):
  nbdkit-memory   nbdkit memory plugin (peer of helio-memory)
  nbdkit-file     nbdkit file plugin on a file in \$WORK
  nbd-server      reference nbd-server (PATH, NBD_SERVER_BIN, or fetched with
                  'apt-get download nbd-server' into \$NBD_SERVER_CACHE)
  qemu-nbd        qemu-nbd -f raw --cache=\$QEMU_CACHE --aio=threads on a file in \$WORK
  helio-rocksdb   \$HELIO_ROCKSDB_CMD
  helio-memory    \$HELIO_MEMORY_CMD

Environment (defaults in brackets):
  SERVERS            servers to run [$ALL_SERVERS]
  ROUNDS             rounds per job; the table shows the median [3]
  ONLY               a regular expression: only the jobs whose names match run,
                     e.g. '^randwrite', '^hot|^region' or 'dbench' [.]
  RUNTIME, RAMP      fio runtime and ramp time per job, seconds [10, 1]
  SUSTAINED          runtime of the sustained write job, seconds [60]
  SUSTAINED_WINDOW   its first and last windows, seconds [10]
  DBENCH_TIME        dbench -t, seconds; dbench warms up for a fifth of it first [20]
  DBENCH_CLIENTS     dbench clients [4]
  DBENCH_LOADFILE    dbench -c, its load file [/usr/share/dbench/client.txt]
  NBDFUSE_ARGS       extra nbdfuse flags for the dbench job, e.g. '-C 1' []
  PRECONDITION       passes of nbdcopy writing the whole image into each export
                     before the first job; 0 leaves every export empty [1]
  SIZE               export size; dbench needs a few hundred MB [1G]
  WORK               images and server state, removed on exit unless KEEP_WORK=1
                     (when this run created it) [/var/tmp/nbd-compare]
  OUT                results: results.csv (every round), summary.txt, logs/, fio/,
                     dbench/ [/tmp/nbd-compare-<timestamp>]
  BASE_PORT          first TCP port; servers use consecutive ports [10900]
  START_TIMEOUT      seconds to wait for a server to accept connections [120]
  QEMU_CACHE         qemu-nbd cache mode; writeback is qemu-nbd's default [writeback]
  NBD_SERVER_BIN     path to nbd-server, overrides the lookup
  HELIO_ARGS         flags added to both of our servers' commands (none by default),
                     e.g. '--nbd-poll 0s' to have their event loops sleep at once,
                     as the peers' threads do []
  HELIO_ROCKSDB_CMD, HELIO_MEMORY_CMD
                     commands that run our server in the foreground, serving export
                     '$EXPORT' of \$SIZE on port \$PORT; run with 'bash -c' from the repo
                     root with PORT, WORK, SIZE, EXPORT exported. Defaults:
                     '$HELIO_ROCKSDB_CMD'
                     '$HELIO_MEMORY_CMD'
EOF
}
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
SIZE_BYTES=$(numfmt --from=iec "$SIZE") || exit 1
CLK_TCK=$(getconf CLK_TCK) || exit 1
export PORT WORK SIZE EXPORT

declare -A PID=()        # server name -> process (group) id, as launched
declare -A SPID=()       # server name -> the process that serves (not a wrapper shell)
declare -A URI=()        # server name -> nbd URI
declare -A MULTI=()      # server name -> multi-conn advertised (nbdcopy uses 4 conns if so)
RUNNING=()               # servers that started and were filled, in launch order
NOTES=()                 # lines for the summary: jobs skipped, and why
DB_DIR='' DB_FUSE_PID='' DB_LOOP=''   # the dbench job's mounts, for teardown at any point

alive() { [[ -n $1 && -n $(ps -o stat= -p "$1" 2>/dev/null | grep -v Z) ]]; }

# Launch "$@" in its own session so the whole process group can be stopped later.
launch() {
  local name=$1; shift
  setsid "$@" </dev/null >"$OUT/logs/$name.log" 2>&1 &
  PID[$name]=$!
}

stop_server() {
  local name=$1 pid=${PID[$1]:-} i
  [[ -n $pid ]] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < 50; i++)); do alive "$pid" || break; sleep 0.2; done
  kill -KILL -- "-$pid" 2>/dev/null
  unset "PID[$name]"
}

cleanup() {
  local name
  dbench_teardown
  for name in "${!PID[@]}"; do stop_server "$name"; done
  if [[ ${KEEP_WORK:-0} != 1 && -n ${CREATED_WORK:-} ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The process that serves: the launched one, or, while that is a wrapper that did not
# exec (bash -c, env, setsid), its only child.
main_pid() {
  local p=$1 kids
  while [[ $(ps -o comm= -p "$p" 2>/dev/null) =~ ^(bash|sh|env|setsid)$ ]]; do
    read -ra kids <<<"$(ps -o pid= --ppid "$p" | tr '\n' ' ')"
    ((${#kids[@]} == 1)) || break
    p=${kids[0]}
  done
  echo "$p"
}

# Process $1 and all its descendants.
proc_tree() {
  ps -e -o pid=,ppid= | awk -v root="$1" '
    { kids[$2] = kids[$2] " " $1 }
    END {
      out = root; queue = root
      while (queue != "") {
        n = split(queue, q, " "); queue = ""
        for (i = 1; i <= n; i++) if (q[i] in kids) { queue = queue kids[q[i]]; out = out kids[q[i]] }
      }
      print out
    }'
}

# CPU clock ticks a server has used: utime + stime + cutime + cstime (/proc/PID/stat) of
# its process and every descendant. nbd-server forks a process per client; once reaped,
# their time shows in its cutime/cstime.
server_ticks() {
  local p line f t=0
  for p in $(proc_tree "${SPID[$1]}"); do
    read -r line 2>/dev/null <"/proc/$p/stat" || continue
    read -ra f <<<"${line##*) }"   # fields from 3 on (state); comm may hold spaces
    ((t += f[11] + f[12] + f[13] + f[14]))
  done
  echo "$t"
}

rss_mib() { awk '/^VmRSS:/ { printf "%.0f", $2 / 1024 }' "/proc/${SPID[$1]}/status"; }

# Bounded wait until the server answers an NBD handshake with the right size.
wait_ready() {
  local name=$1 uri=${URI[$1]} deadline=$((SECONDS + START_TIMEOUT)) size
  while ((SECONDS < deadline)); do
    if ! alive "${PID[$name]}"; then
      log "$name: exited during startup; last log lines:"; tail -n 15 "$OUT/logs/$name.log" >&2
      return 1
    fi
    if size=$(timeout 5 nbdinfo --size "$uri" 2>/dev/null); then
      [[ $size == "$SIZE_BYTES" ]] && return 0
      log "$name: export size is $size, expected $SIZE_BYTES"; return 1
    fi
    sleep 0.2
  done
  log "$name: not accepting connections after ${START_TIMEOUT}s"; return 1
}

# nbd-server: PATH, NBD_SERVER_BIN, a previous extraction, else extract the Debian package
# (its maintainer scripts fail in containers without systemd, so no dpkg -i).
find_nbd_server() {
  local c
  for c in "${NBD_SERVER_BIN:-}" "$(command -v nbd-server)" /usr/sbin/nbd-server \
           /bin/nbd-server "$NBD_SERVER_CACHE/bin/nbd-server"; do
    [[ -n $c && -x $c ]] && { echo "$c"; return 0; }
  done
  command -v apt-get >/dev/null || return 1
  log "nbd-server not installed; extracting the Debian package into $NBD_SERVER_CACHE"
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download nbd-server >/dev/null 2>&1 && mkdir -p "$NBD_SERVER_CACHE" &&
     dpkg-deb -x nbd-server_*.deb "$NBD_SERVER_CACHE") || { rm -rf "$tmp"; return 1; }
  rm -rf "$tmp"
  [[ -x $NBD_SERVER_CACHE/bin/nbd-server ]] && echo "$NBD_SERVER_CACHE/bin/nbd-server"
}

# The file a file-backed peer serves: empty, the size of the image; the preconditioning
# pass writes the image into it over NBD, as into every other export.
empty_image() { rm -f "$1" && truncate -s "$SIZE_BYTES" "$1"; }

# Start one server on $PORT, wait for it and fill its export. Returns non-zero to skip it.
start_server() {
  local name=$1 img="$WORK/$1.img" bin cmd i
  URI[$name]="nbd://127.0.0.1:$PORT/$EXPORT"
  case $name in
    nbdkit-memory)
      command -v nbdkit >/dev/null || { log "skip $name: nbdkit not installed"; return 1; }
      launch "$name" nbdkit -f -i 127.0.0.1 -p "$PORT" -e "$EXPORT" memory size="$SIZE_BYTES" ;;
    nbdkit-file)
      command -v nbdkit >/dev/null || { log "skip $name: nbdkit not installed"; return 1; }
      empty_image "$img" || return 1
      launch "$name" nbdkit -f -i 127.0.0.1 -p "$PORT" -e "$EXPORT" file "$img" ;;
    qemu-nbd)
      command -v qemu-nbd >/dev/null || { log "skip $name: qemu-nbd not installed"; return 1; }
      empty_image "$img" || return 1
      # -e: qemu-nbd serves only ONE client at a time by default; -t: survive disconnects.
      launch "$name" qemu-nbd -f raw -t -e 8 -b 127.0.0.1 -p "$PORT" -x "$EXPORT" \
        --cache="$QEMU_CACHE" --aio=threads "$img" ;;
    nbd-server)
      bin=$(find_nbd_server) || { log "skip $name: nbd-server binary not found"; return 1; }
      empty_image "$img" || return 1
      # Only newstyle exists since 3.10 (oldstyle=true is an error), so it is not set.
      printf '[generic]\nport = %s\nlistenaddr = 127.0.0.1\nallowlist = true\n[%s]\nexportname = %s\n' \
        "$PORT" "$EXPORT" "$img" >"$WORK/nbd-server.conf"
      # It daemonizes (and forks one child per client); -d would serve only ONE
      # connection and exit. Track the daemon through its pid file.
      rm -f "$WORK/nbd-server.pid"
      launch "$name" "$bin" -C "$WORK/nbd-server.conf" -p "$WORK/nbd-server.pid"
      for ((i = 0; i < 100; i++)); do [[ -s $WORK/nbd-server.pid ]] && break; sleep 0.1; done
      [[ -s $WORK/nbd-server.pid ]] || { log "$name: no pid file"; cat "$OUT/logs/$name.log" >&2; return 1; }
      PID[$name]=$(<"$WORK/nbd-server.pid") ;;
    helio-rocksdb|helio-memory)
      [[ $name == helio-rocksdb ]] && cmd=$HELIO_ROCKSDB_CMD || cmd=$HELIO_MEMORY_CMD
      log "$name: $cmd $HELIO_ARGS"
      launch "$name" env -C "$REPO" bash -c "$cmd $HELIO_ARGS" ;;
    *) log "unknown server '$name' (known: $ALL_SERVERS)"; return 1 ;;
  esac
  wait_ready "$name" || return 1
  SPID[$name]=$(main_pid "${PID[$name]}")
  log "$name: serving process $(ps -o pid=,comm= -p "${SPID[$name]}" | xargs)"
  for ((i = 1; i <= PRECONDITION; i++)); do
    log "$name: writing the image with nbdcopy, pass $i of $PRECONDITION"
    nbdcopy "$WORK/base.img" "${URI[$name]}" 2>>"$OUT/logs/$name.log" ||
      { log "$name: nbdcopy pass $i failed (see $OUT/logs/$name.log)"; return 1; }
  done
  MULTI[$name]=$(nbdinfo --can multi-conn "${URI[$name]}" 2>/dev/null && echo yes || echo no)
}

# Job table: id|kind|fio arguments. kind: iops, mbps, lat (mean+p99), nbdcopy,
# sustained (once per server), dbench.
JOBS=(
  "randread-4k-qd32|iops|--rw=randread --bs=4k --iodepth=32 --numjobs=1"
  "randwrite-4k-qd32|iops|--rw=randwrite --bs=4k --iodepth=32 --numjobs=1"
  "randread-4k-2x16|iops|--rw=randread --bs=4k --iodepth=16 --numjobs=2"
  "randwrite-4k-2x16|iops|--rw=randwrite --bs=4k --iodepth=16 --numjobs=2"
  "randread-4k-qd1|lat|--rw=randread --bs=4k --iodepth=1 --numjobs=1"
  "seqread-1m-qd8|mbps|--rw=read --bs=1m --iodepth=8 --numjobs=1"
  "seqwrite-1m-qd8|mbps|--rw=write --bs=1m --iodepth=8 --numjobs=1"
  "hot1-qd1|iops|--rw=randwrite --bs=4k --size=4k --iodepth=1 --numjobs=1"
  "hot1-qd32|iops|--rw=randwrite --bs=4k --size=4k --iodepth=32 --numjobs=1"
  "hot8-qd1|iops|--rw=randwrite --bs=4k --size=32k --iodepth=1 --numjobs=1"
  "hot8-qd32|iops|--rw=randwrite --bs=4k --size=32k --iodepth=32 --numjobs=1"
  "region1m-qd32|iops|--rw=randwrite --bs=4k --size=1m --iodepth=32 --numjobs=1"
  "nbdcopy-to-null|nbdcopy|"
  "sustained-randwrite-4k-qd32|sustained|--rw=randwrite --bs=4k --iodepth=32 --numjobs=1"
  "dbench|dbench|"
)

# CPU time counters from /proc/stat: "steal total", in clock ticks.
cpu_ticks() { awk '/^cpu /{t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t}' /proc/stat; }

record() { echo "$1,$2,$3,$4,$5,$6" >>"$OUT/results.csv"; log "  $4 r$5 $1: $6 $3 ($2)"; }

# record_cpu JOB SERVER ROUND TICKS_BEFORE TICKS_AFTER BYTES: server CPU seconds per GiB moved.
record_cpu() {
  local v
  v=$(awk -v d="$(($5 - $4))" -v hz="$CLK_TCK" -v b="$6" \
        'BEGIN { if (b > 0) printf "%.4f", d / hz / (b / 1073741824) }')
  [[ -n $v ]] && record "$1" CPU s/GiB "$2" "$3" "$v"
}

# Whether the dbench job can run here; prints the reason when it cannot.
dbench_check() {
  local c
  ((EUID == 0)) || { echo "needs root (losetup, mount)"; return 1; }
  [[ -c /dev/fuse ]] || { echo "no /dev/fuse"; return 1; }
  for c in nbdfuse fusermount3 dbench mkfs.ext4 losetup mount umount; do
    command -v "$c" >/dev/null || { echo "$c not installed"; return 1; }
  done
  [[ -r $DBENCH_LOADFILE ]] || { echo "no dbench load file $DBENCH_LOADFILE"; return 1; }
  losetup -f >/dev/null 2>&1 || { echo "no free loop device"; return 1; }
}

# /proc/self/mountinfo, not mountpoint(1): a FUSE mount whose daemon died cannot be stat'ed.
is_mounted() { awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo; }

# Undo whatever run_dbench set up, innermost first; safe to call at any point and twice.
dbench_teardown() {
  local i
  [[ -n $DB_DIR ]] || return 0
  if is_mounted "$DB_DIR/mnt"; then
    umount "$DB_DIR/mnt" 2>>"$OUT/logs/dbench.log" || umount -l "$DB_DIR/mnt"
  fi
  [[ -n $DB_LOOP ]] && losetup -d "$DB_LOOP" 2>>"$OUT/logs/dbench.log"
  DB_LOOP=''
  if [[ -n $DB_FUSE_PID ]]; then
    # Unmounting is how nbdfuse is told to exit; a detached loop device may hold the
    # file a moment longer, so retry while the mount is busy.
    for ((i = 0; i < 50; i++)); do
      is_mounted "$DB_DIR/fuse" || break
      fusermount3 -u "$DB_DIR/fuse" 2>/dev/null && break
      sleep 0.2
    done
    for ((i = 0; i < 50; i++)); do alive "$DB_FUSE_PID" || break; sleep 0.2; done
    if alive "$DB_FUSE_PID"; then
      log "nbdfuse ($DB_FUSE_PID) did not exit after fusermount3 -u; stopping it"
      kill -TERM "$DB_FUSE_PID"; sleep 1
    fi
    is_mounted "$DB_DIR/fuse" && fusermount3 -u -z "$DB_DIR/fuse"
    wait "$DB_FUSE_PID" 2>/dev/null
    DB_FUSE_PID=''
  fi
  # rmdir, not rm -rf: nothing is deleted through a mount that is somehow still there.
  rm -f "$DB_DIR/nbdfuse.pid"
  rmdir "$DB_DIR/mnt" "$DB_DIR/fuse" "$DB_DIR" 2>/dev/null || log "left $DB_DIR behind"
  DB_DIR=''
}

# Bytes read and written through the loop device so far.
loop_bytes() { awk '{ printf "%.0f\n", ($3 + $7) * 512 }' "/sys/block/${DB_LOOP#/dev/}/stat"; }

# ext4 on the export through nbdfuse and a loop device, then dbench on it.
run_dbench() {
  local id=$1 name=$2 round=$3 out="$OUT/dbench/$2.r$3.txt" dlog="$OUT/logs/dbench.log" i rc
  local c0 c1 b0 b1 mbps
  DB_DIR=$(mktemp -d "${TMPDIR:-/tmp}/nbd-compare-dbench.XXXXXX") || return
  mkdir "$DB_DIR/fuse" "$DB_DIR/mnt"
  echo "== $name round $round" >>"$dlog"
  # shellcheck disable=SC2086  # $NBDFUSE_ARGS is a deliberate word list
  nbdfuse $NBDFUSE_ARGS -P "$DB_DIR/nbdfuse.pid" "$DB_DIR/fuse/disk" "${URI[$name]}" >>"$dlog" 2>&1 &
  DB_FUSE_PID=$!
  for ((i = 0; i < 100; i++)); do
    [[ -s $DB_DIR/nbdfuse.pid ]] && break
    alive "$DB_FUSE_PID" || break
    sleep 0.1
  done
  if [[ ! -s $DB_DIR/nbdfuse.pid ]]; then
    log "  $name: nbdfuse did not come up (see $dlog)"; dbench_teardown; return
  fi
  if ! DB_LOOP=$(losetup --find --show "$DB_DIR/fuse/disk" 2>>"$dlog"); then
    DB_LOOP=''; log "  $name: losetup failed (see $dlog)"; dbench_teardown; return
  fi
  if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DB_LOOP" >>"$dlog" 2>&1 ||
     ! mount "$DB_LOOP" "$DB_DIR/mnt" >>"$dlog" 2>&1; then
    log "  $name: mkfs.ext4 or mount failed (see $dlog)"; dbench_teardown; return
  fi
  c0=$(server_ticks "$name"); b0=$(loop_bytes)
  dbench -c "$DBENCH_LOADFILE" -t "$DBENCH_TIME" -D "$DB_DIR/mnt" "$DBENCH_CLIENTS" >"$out" 2>&1
  rc=$?
  sync -f "$DB_DIR/mnt"
  b1=$(loop_bytes); c1=$(server_ticks "$name")
  dbench_teardown
  mbps=$(awk '/^Throughput/ { print $2 }' "$out")
  if [[ $rc != 0 || -z $mbps ]]; then log "  $name: dbench failed (see $out)"; return; fi
  record "$id" bandwidth MB/s "$name" "$round" "$mbps"
  # What reached the server, the denominator of the CPU row: most of what dbench counts
  # stays in the page cache.
  record "$id" moved GiB "$name" "$round" "$(awk -v b="$((b1 - b0))" 'BEGIN { printf "%.3f", b / 1073741824 }')"
  record_cpu "$id" "$name" "$round" "$c0" "$c1" "$((b1 - b0))"
}

# Run one job against one server; appends rows to results.csv.
run_job() {
  local id=$1 kind=$2 args=$3 name=$4 round=$5 uri=${URI[$4]} json t0 c0 c1 rss='' snap mb m=()
  local ramp=$RAMP runtime=$RUNTIME extra=()
  case $kind in
    nbdcopy)
      c0=$(server_ticks "$name"); t0=$EPOCHREALTIME
      nbdcopy "$uri" null: 2>>"$OUT/logs/nbdcopy.log" || { log "  $name: nbdcopy failed"; return; }
      mb=$(awk -v b="$SIZE_BYTES" -v s="$t0" -v e="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b/(e-s)/1e6}')
      c1=$(server_ticks "$name")
      record "$id" bandwidth MB/s "$name" "$round" "$mb"
      record_cpu "$id" "$name" "$round" "$c0" "$c1" "$SIZE_BYTES"
      return ;;
    dbench) run_dbench "$id" "$name" "$round"; return ;;
    sustained)
      ramp=0 runtime=$SUSTAINED
      extra=(--write_iops_log="$OUT/fio/$id.$name" --log_avg_msec=1000) ;;
  esac
  json="$OUT/fio/$id.$name.r$round.json"
  # The server's CPU is counted from the end of the ramp: snapshot it in the background.
  (sleep "$ramp"; server_ticks "$name" >"$OUT/fio/.ticks0") &
  snap=$!
  # numjobs=N opens N independent NBD connections (one libnbd handle per fio job).
  # shellcheck disable=SC2086  # $args is a deliberate word list
  fio --name="$id" --ioengine=nbd --uri="$uri" $args --group_reporting --norandommap \
      --time_based --runtime="$runtime" --ramp_time="$ramp" --lat_percentiles=1 "${extra[@]}" \
      --output-format=json --output="$json" >>"$OUT/logs/fio.log" 2>&1
  local rc=$?
  c1=$(server_ticks "$name")
  [[ $kind == sustained ]] && rss=$(rss_mib "$name")
  wait "$snap"
  c0=$(<"$OUT/fio/.ticks0"); rm -f "$OUT/fio/.ticks0"
  # shellcheck disable=SC2207  # report.py prints numbers separated by spaces
  ((rc == 0)) && m=($(python3 "$HERE/report.py" fio "$json" 2>>"$OUT/logs/fio.log"))
  if ((rc != 0 || ${#m[@]} != 5)); then log "  $name: fio $id failed (see $OUT/logs/fio.log)"; return; fi
  case $kind in
    iops) record "$id" iops IOPS "$name" "$round" "${m[0]}" ;;
    mbps) record "$id" bandwidth MB/s "$name" "$round" "${m[1]}" ;;
    lat)  record "$id" mean us "$name" "$round" "${m[2]}"
          record "$id" p99 us "$name" "$round" "${m[3]}" ;;
    sustained)
      local w=()
      # shellcheck disable=SC2207
      w=($(python3 "$HERE/report.py" iopslog "$OUT/fio/$id.${name}_iops.1.log" "$SUSTAINED_WINDOW" \
             2>>"$OUT/logs/fio.log"))
      if ((${#w[@]} != 3)); then
        log "  $name: no first/last IOPS for $id (see $OUT/logs/fio.log)"
      else
        record "$id" "first ${SUSTAINED_WINDOW}s" IOPS "$name" "$round" "${w[0]}"
        record "$id" "last ${SUSTAINED_WINDOW}s" IOPS "$name" "$round" "${w[1]}"
        record "$id" last/first "" "$name" "$round" "${w[2]}"
      fi
      [[ -n $rss ]] && record "$id" RSS MiB "$name" "$round" "$rss" ;;
  esac
  record_cpu "$id" "$name" "$round" "$c0" "$c1" "${m[4]}"
}

# Rough minutes the selected jobs take with N servers.
estimate_minutes() {
  local n=$1 job id kind args s=0
  for job in "${JOBS[@]}"; do
    IFS='|' read -r id kind args <<<"$job"
    [[ $id =~ $ONLY ]] || continue
    case $kind in
      sustained) ((s += SUSTAINED + 2)) ;;
      dbench)    ((s += ROUNDS * (DBENCH_TIME * 6 / 5 + 15))) ;;
      nbdcopy)   ((s += ROUNDS * 5)) ;;
      *)         ((s += ROUNDS * (RUNTIME + RAMP + 1))) ;;
    esac
  done
  echo $(((s * n + 59) / 60))
}

main() {
  local name port=$BASE_PORT job id kind args r rounds why
  fio --enghelp=nbd >/dev/null 2>&1 || { echo "fio lacks the nbd engine" >&2; exit 1; }
  command -v nbdcopy >/dev/null && command -v nbdinfo >/dev/null ||
    { echo "need nbdcopy and nbdinfo (libnbd-bin)" >&2; exit 1; }
  [[ -d $WORK ]] || CREATED_WORK=1
  mkdir -p "$WORK" "$OUT/logs" "$OUT/fio" "$OUT/dbench"
  echo "job,metric,unit,server,round,value" >"$OUT/results.csv"

  if [[ $(stat -c %s "$WORK/base.img" 2>/dev/null) != "$SIZE_BYTES" ]]; then
    log "creating $WORK/base.img ($SIZE of random data)"
    head -c "$SIZE_BYTES" /dev/urandom >"$WORK/base.img" || exit 1
  fi

  for name in $SERVERS; do
    PORT=$((port++))
    log "starting $name on port $PORT"
    if start_server "$name"; then RUNNING+=("$name"); else stop_server "$name"; fi
  done
  ((${#RUNNING[@]})) || { log "no server could be started"; exit 1; }
  log "running: ${RUNNING[*]}; $ROUNDS round(s); about $(estimate_minutes ${#RUNNING[@]}) minutes"
  local ticks0 ticks1
  read -ra ticks0 <<<"$(cpu_ticks)"

  for job in "${JOBS[@]}"; do
    IFS='|' read -r id kind args <<<"$job"
    [[ $id =~ $ONLY ]] || continue
    if [[ $kind == dbench ]] && ! why=$(dbench_check); then
      log "skip $id: $why"; NOTES+=("$id skipped: $why"); continue
    fi
    log "job $id"
    rounds=$ROUNDS; [[ $kind == sustained ]] && rounds=1
    for ((r = 1; r <= rounds; r++)); do
      for name in "${RUNNING[@]}"; do run_job "$id" "$kind" "$args" "$name" "$r"; done
    done
  done

  read -ra ticks1 <<<"$(cpu_ticks)"
  {
    echo "NBD comparison $(date -Is) on $(hostname), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
    # Steal: CPU time the hypervisor gave to others while this VM wanted it; above a few
    # percent, absolute numbers drop and rounds scatter, and only the ratios compare.
    awk -v s="$((ticks1[0] - ticks0[0]))" -v t="$((ticks1[1] - ticks0[1]))" \
      'BEGIN { printf "CPU steal during the jobs: %.1f%%\n", (t > 0 ? 100 * s / t : 0) }'
    echo "work=$WORK ($(df --output=fstype "$WORK" | tail -n 1)) size=$SIZE rounds=$ROUNDS runtime=${RUNTIME}s ramp=${RAMP}s precondition=${PRECONDITION} pass(es)"
    echo "sustained=${SUSTAINED}s window=${SUSTAINED_WINDOW}s dbench=${DBENCH_CLIENTS} clients ${DBENCH_TIME}s${NBDFUSE_ARGS:+ nbdfuse args: $NBDFUSE_ARGS} qemu-nbd cache=$QEMU_CACHE aio=threads${HELIO_ARGS:+ helio args: $HELIO_ARGS}$([[ $ONLY == . ]] || echo " jobs matching: $ONLY")"
    printf 'multi-conn advertised:'; for name in "${RUNNING[@]}"; do printf ' %s=%s' "$name" "${MULTI[$name]}"; done; echo
    for why in "${NOTES[@]}"; do echo "note: $why"; done
    echo
    python3 "$HERE/report.py" summary "$OUT/results.csv"
  } | tee "$OUT/summary.txt"
  log "results in $OUT (results.csv, summary.txt, logs/, fio/, dbench/)"
}

main "$@"
