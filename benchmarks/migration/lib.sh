# Shared by the migration baselines (sourced, not run): the records guest under QEMU, the
# emulated link, QMP, helio up with VMs. Expects HERE, REPO, OUT, WORK, RTT and BANDWIDTH to be set.
# shellcheck shell=bash

# shellcheck source=../geo/lib.sh
source "$HERE/../geo/lib.sh"

GUEST_DIR=$WORK/guest
NONCE=$(head -c 8 /dev/urandom | od -An -tx1 | tr -d ' \n')

# The consoles whose "HELIO-REC n" lines count (a glob): the QEMUs these scripts start;
# heliotrope.sh points it at the sites' runners' logs.
CONSOLES="$WORK/*/console.log"

# The records guest (it-tests/src/test/guest/build-guest.sh).
prepare_guest() {
  log "building the records guest (logs/build.log)"
  bash "$REPO/it-tests/src/test/guest/build-guest.sh" "$GUEST_DIR" >>"$OUT/logs/build.log" 2>&1 ||
    die "build-guest.sh failed (see $OUT/logs/build.log)"
}

# The WAN proxy's class path (wan-emulator's jar, Netty, SLF4J and slf4j-simple, so the
# proxy logs its byte counts), for start_link.
prepare_links() {
  log "building the WAN proxy (logs/build.log)"
  (cd "$REPO" && ./mvnw -B -q -o -pl wan-emulator -am package -DskipTests &&
    ./mvnw -B -q -o -pl wan-emulator dependency:build-classpath -Dmdep.includeScope=test \
      -Dmdep.outputFile="$OUT/logs/wan.classpath") >>"$OUT/logs/build.log" 2>&1 ||
    die "building wan-emulator failed (see $OUT/logs/build.log)"
  WAN_CLASSPATH=$(compgen -G "$REPO/wan-emulator/target/heliotrope-wan-emulator-*.jar" | head -n 1):$(cat "$OUT/logs/wan.classpath")
  DELAY=$(half_duration "$RTT")
}

# start_link NAME LISTEN_PORT TARGET_PORT: one emulated link (WanProxyMain), RTT/2 each way.
start_link() {
  launch "$1" java -Xmx256m -cp "$WAN_CLASSPATH" io.heliotrope.wan.WanProxyMain \
    --listen "127.0.0.1:$2" --target "127.0.0.1:$3" --delay "$DELAY" --bandwidth "$BANDWIDTH"
  wait_for_line "$1" "wan-proxy:" 60
}

# link_bytes NAME: "FORWARD BACKWARD", the bytes a stopped link delivered each way (from its log).
link_bytes() {
  sed -n 's/.*closed after \([0-9]*\) bytes forward, \([0-9]*\) backward.*/\1 \2/p' "$OUT/logs/$1.log" | tail -n 1 |
    grep . || die "no byte counts in $OUT/logs/$1.log"
}

# start_guest NAME BLOCKDEV [QEMU ARGS...]: the records guest (console log, console and QMP
# sockets in $WORK/NAME), its disk the -blockdev node "records"; the same command line as
# RecordGuest.qemuCommand in it-tests. Returns once QMP listens.
start_guest() {
  local name=$1 blockdev=$2 dir=$WORK/$1
  shift 2
  rm -rf "$dir" && mkdir -p "$dir"
  launch_qemu "$name" "$dir" -m 128 \
    -kernel "$GUEST_DIR/vmlinuz" -initrd "$GUEST_DIR/records-initrd.img" \
    -append "console=ttyS0 panic=-1 quiet helio.nonce=$NONCE" \
    -blockdev "$blockdev" -device virtio-blk-pci,drive=records "$@"
}

# launch_qemu NAME DIR [ARGS...]: qemu-system-x86_64 (after the command of QEMU_CORE, e.g.
# taskset, when set) as the sites' runners start it: TCG, no display, network or reboot, its
# serial console on DIR/console.sock (logged to DIR/console.log) and QMP on DIR/qmp.sock,
# then ARGS; returns once QMP listens.
launch_qemu() {
  local name=$1 dir=$2 deadline=$((SECONDS + 30))
  shift 2
  launch "$name" ${QEMU_CORE[@]+"${QEMU_CORE[@]}"} qemu-system-x86_64 -machine q35,accel=tcg -display none -no-reboot -nic none \
    -chardev "socket,id=console,path=$dir/console.sock,server=on,wait=off,logfile=$dir/console.log" -serial chardev:console \
    -qmp "unix:$dir/qmp.sock,server=on,wait=off" "$@"
  until [[ -S $dir/qmp.sock ]]; do
    alive "${PID[$name]}" || { tail -n 20 "$OUT/logs/$name.log" >&2; die "QEMU $name exited"; }
    ((SECONDS < deadline)) || die "QEMU $name: no QMP socket after 30 s"
    sleep 0.1
  done
}

# last_record: the largest n of a complete "HELIO-REC n" line in the $CONSOLES so far (-1: none).
last_record() {
  local files
  mapfile -t files < <(compgen -G "$CONSOLES")
  cat "${files[@]}" </dev/null 2>/dev/null | tr -d '\r' |
    awk 'BEGIN { m = -1 } /^HELIO-REC [0-9]+$/ && $2 + 0 > m { m = $2 + 0 } END { print m }'
}

# await_record N TIMEOUT: until record N is acknowledged on some console.
await_record() {
  local deadline=$((SECONDS + $2))
  until (($(last_record) >= $1)); do
    ((SECONDS < deadline)) || die "no HELIO-REC $1 within $2 s (last: $(last_record))"
    sleep 0.2
  done
}

# json_fields KEY...: the values of these keys of the JSON object on stdin, comma-separated.
json_fields() {
  python3 -c 'import json, sys; d = json.load(sys.stdin); print(",".join(str(d[k]) for k in sys.argv[1:]))' "$@"
}

# check_records FILE: records 0..last_record of this run's nonce are in FILE.
check_records() {
  local last
  last=$(last_record)
  python3 "$HERE/check_records.py" "$1" "$NONCE" "$last" || die "records check failed on $1"
  log "records 0..$last (nonce $NONCE) are all on the disk"
}

# --- helio up with VMs (heliotrope.sh, ensemble.sh); expects HELIO and PORT_OFFSET too ---

# The QEMUs the sites' runners started for us: left running when helio up stops, so killed
# here by the pid in their pidfile (only a QEMU whose command line names our data directory).
kill_vms() {
  local pidfile pid
  for pidfile in "$DATA"/*/vms/*/qemu.pid; do
    [[ -f $pidfile ]] || continue
    pid=$(cat "$pidfile")
    if [[ $pid =~ ^[0-9]+$ ]] && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "$DATA/"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

# start_up_with_vms [HELIO UP OPTION...]: a fresh 'helio up' in
# $WORK/data ($RTT, $BANDWIDTH, ports PORT_OFFSET above the defaults, the migration driver
# beside its controller, the options given); helio and the VMs it started are stopped on
# exit. Sets DATA, the ports of set_up_ports, STATUS_PORT, MIGRATION_PORT and SITES, and
# points helio at the controller.
start_up_with_vms() {
  DATA=$WORK/data
  export XDG_CONFIG_HOME=$WORK/config   # helio up writes its client configuration here, not to ~/.config
  set_up_ports "$PORT_OFFSET"
  export HELIO_CONTROLLER=$CONTROLLER
  SITES=(virginia taiwan)
  remove_tree "$DATA" "$XDG_CONFIG_HOME" "$WORK/scratch"
  mkdir -p "$DATA" "$XDG_CONFIG_HOME" "$WORK/scratch" "$OUT/logs"
  trap 'stop_all; kill_vms; rm -rf "$WORK/scratch"' EXIT
  trap 'exit 130' INT TERM
  if [[ -z ${DISTRIBUTION_BUILT:-} ]]; then   # once per script, however many times helio up starts
    log "building the distribution (./mvnw -o -pl cli -am package; logs/build.log)"
    (cd "$REPO" && ./mvnw -B -q -o -pl cli -am package -DskipTests) >>"$OUT/logs/build.log" 2>&1 ||
      die "building the distribution failed (see $OUT/logs/build.log)"
    DISTRIBUTION_BUILT=1
  fi
  helio_up up "$DATA" "$RTT" "$BANDWIDTH" --demo-size 16M "$@" || die "helio up did not start (see $OUT/logs/up.log)"
}

# start_vm NAME DISK...: the records guest as a VM at virginia, started, once it has acknowledged record 3.
start_vm() {
  local name=$1 disks=() d
  shift
  for d in "$@"; do disks+=(--disk "$d"); done
  helio vm create "$name" --site virginia "${disks[@]}" --memory 128M --kernel "$GUEST_DIR/vmlinuz" \
    --initrd "$GUEST_DIR/records-initrd.img" --append "console=ttyS0 panic=-1 quiet helio.nonce=$NONCE" >&2
  helio vm start "$name" >&2
  CONSOLES="$DATA/*/vms/$name/console.log"
  await_record 3 180
}

# verify_records IMAGE SITE: every acknowledged record of this run is on IMAGE, read at SITE.
verify_records() {
  local port=$NBD_V
  [[ $2 == taiwan ]] && port=$NBD_T
  nbdcopy "nbd://127.0.0.1:$port/$1" "$WORK/scratch/$1-$2.img"
  check_records "$WORK/scratch/$1-$2.img"
  rm -f "$WORK/scratch/$1-$2.img"
}
