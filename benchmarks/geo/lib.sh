# Shared by the geo benchmarks (sourced, not run): process control, helio up, metrics,
# units. Expects REPO, OUT and HELIO to be set by the script that sources it.
# shellcheck shell=bash

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

declare -A PID=()   # name -> process group id of a helper this script launched
LAUNCHED=()         # names in launch order, stopped in reverse

alive() { [[ -n $1 ]] && ps -o stat= -p "$1" 2>/dev/null | grep -qv Z; }

# until_gone PID SECONDS: true once the process has exited, false if it still runs then.
until_gone() {
  local deadline=$((SECONDS + $2))
  while alive "$1"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

is_mounted() { awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo; }

# remove_tree DIR...: each DIR and everything in it removed, never crossing into another
# file system; refuses (dies, naming them) while anything is mounted at or below DIR: a
# crashed or concurrent run's live images are never deleted.
remove_tree() {
  local dir mounts
  for dir in "$@"; do
    dir=$(realpath -m "$dir")
    mounts=$(awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { printf " %s", $5 }' /proc/self/mountinfo)
    [[ -z $mounts ]] || die "not removing $dir: mounted at or below it:$mounts (another run's? unmount them first)"
    rm -rf --one-file-system "$dir"
  done
}

# launch NAME CMD...: run CMD in a session of its own (so its whole group can be
# stopped, and a Ctrl-C at the terminal reaches only this script), output in logs/NAME.log.
launch() {
  local name=$1; shift
  setsid "$@" </dev/null >"$OUT/logs/$name.log" 2>&1 &
  PID[$name]=$!
  LAUNCHED+=("$name")
}

# stop NAME: TERM to the group we launched, KILL after 15 s. Only ever our own PIDs.
stop() {
  local name=$1 pid=${PID[$1]:-} i
  [[ -n $pid ]] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 75; i++)); do alive "$pid" || break; sleep 0.2; done
  if alive "$pid"; then
    log "$name ($pid) ignored TERM for 15 s; killing it"
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
  unset "PID[$name]"
}

stop_all() {
  local i
  for ((i = ${#LAUNCHED[@]} - 1; i >= 0; i--)); do stop "${LAUNCHED[i]}"; done
  LAUNCHED=()
}

# wait_for_line NAME TEXT TIMEOUT: until logs/NAME.log holds TEXT; fails when the
# process exits first or the time runs out.
wait_for_line() {
  local name=$1 text=$2 deadline=$((SECONDS + $3))
  while ((SECONDS < deadline)); do
    grep -qF -- "$text" "$OUT/logs/$name.log" 2>/dev/null && return 0
    if ! alive "${PID[$name]}"; then
      log "$name exited during startup; last lines of $OUT/logs/$name.log:"
      tail -n 20 "$OUT/logs/$name.log" >&2
      return 1
    fi
    sleep 0.2
  done
  log "$name: no '$text' after $3 s (see $OUT/logs/$name.log)"
  return 1
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A TCP port nobody listens on right now (the kernel's choice).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# require_ports PORT...: fail early, naming the port, when another process serves it
# (another engineer's helio up, say); --port-offset moves ours.
require_ports() {
  local p
  for p in "$@"; do
    port_in_use "$p" && die "port $p is in use on 127.0.0.1 (another helio?); pick other ports with --port-offset"
  done
  return 0
}

# helio ARGS...: the command line client of the build under test.
helio() { "$HELIO" "$@"; }

# The distribution must exist before timing anything: bin/helio would otherwise build it
# in the middle of a run.
require_build() {
  local root=$1
  if ! compgen -G "$root/cli/target/heliotrope-cli-*.jar" >/dev/null || [[ ! -d $root/cli/target/lib ]]; then
    die "no built distribution in $root; build it first: (cd $root && ./mvnw -B -q -pl cli -am install -DskipTests)"
  fi
}

# cli_classpath ROOT: the class path of a built distribution (for WanProxyMain).
cli_classpath() {
  local jar
  jar=$(compgen -G "$1/cli/target/heliotrope-cli-*.jar" | grep -v -- '-tests.jar' | head -n 1)
  echo "$jar:$1/cli/target/lib/*"
}

# Ports of helio up for a given offset (virginia; taiwan is one more each, 4 more for migration).
set_up_ports() {
  local off=$1
  CONTROLLER_PORT=$((7400 + off)) GRPC_V=$((7410 + off)) GRPC_T=$((7411 + off))
  METRICS_V=$((9410 + off)) METRICS_T=$((9411 + off)) NBD_V=$((10809 + off)) NBD_T=$((10810 + off))
  STATUS_PORT=$((7480 + off)) MIGRATION_PORT=$((7420 + off))
  CONTROLLER=127.0.0.1:$CONTROLLER_PORT
}

# helio_up NAME DATA_DIR RTT BANDWIDTH [HELIO UP OPTION...]: controller + virginia + taiwan
# behind the WAN emulator, on the ports set_up_ports chose (all of them checked free first,
# the 8 migration ports included); returns once both sites serve (START_TIMEOUT, 180 s).
helio_up() {
  local name=$1 dir=$2 rtt=$3 bw=$4
  shift 4
  require_ports "$CONTROLLER_PORT" "$GRPC_V" "$GRPC_T" "$METRICS_V" "$METRICS_T" "$NBD_V" "$NBD_T" "$STATUS_PORT" \
    $(seq "$MIGRATION_PORT" $((MIGRATION_PORT + 7)))
  log "$name: helio up, $rtt RTT, $bw, data in $dir"
  launch "$name" "$HELIO" up --data-dir "$dir" --wan-rtt "$rtt" --wan-bandwidth "$bw" \
    --controller-port "$CONTROLLER_PORT" --grpc-port "$GRPC_V" --metrics-port "$METRICS_V" --nbd-port "$NBD_V" \
    --status-port "$STATUS_PORT" --migration-port "$MIGRATION_PORT" "$@"
  wait_for_line "$name" "Press Ctrl-C to stop." "${START_TIMEOUT:-180}"
}

# The in-flight window helio up's links use (bytes), from its log, so a peer's link can
# be given the same one.
up_window_bytes() {
  sed -n 's/.*link virginia->taiwan: .*windowBytes=\([0-9]*\).*/\1/p' "$OUT/logs/$1.log" | head -n 1
}

# metric URL NAME [LABEL...]: the sum of the samples of NAME whose labels contain every
# LABEL (each one 'key="value"', so the labels' order does not matter; 0 when no sample
# matches). Fails, printing nothing, when /metrics cannot be read: never a 0 for a failure.
metric() {
  local text
  text=$(curl -fsS --max-time 5 "$1") || { log "reading $1 failed"; return 1; }
  awk -v name="$2" -v want="${*:3}" '
    BEGIN { n = split(want, labels, " ") }
    index($0, name) == 1 && (substr($0, length(name) + 1, 1) ~ /[{ ]/) {
      for (i = 1; i <= n; i++) if (!index($0, labels[i])) next
      s += $NF
    }
    END { printf "%.0f\n", s }' <<<"$text"
}

# peer_totals URL: "SENT RECEIVED", the peer bytes virginia (whose /metrics URL is) sent to
# and received from taiwan so far. Each site counts the calls it makes and the calls it
# serves, so virginia's count is every byte of the link but the RTT probes' share of
# taiwan's own calls. Fails when /metrics cannot be read.
peer_totals() {
  local sent received
  sent=$(metric "$1" heliotrope_peer_bytes_total 'direction="sent"' 'peer="taiwan"') &&
    received=$(metric "$1" heliotrope_peer_bytes_total 'direction="received"' 'peer="taiwan"') &&
    echo "$sent $received"
}

# Lease holder of an image, as 'helio image show' prints it: empty when nobody holds it.
lease_holder() {
  helio image show "$1" --controller "$CONTROLLER" 2>/dev/null |
    sed -n 's/^lease: *held by \([^,]*\),.*/\1/p; s/^lease: *none.*/-/p'
}

# wait_closed IMAGE TIMEOUT: until no site holds the image's write lease.
wait_closed() {
  local image=$1 deadline=$((SECONDS + $2)) holder
  while ((SECONDS < deadline)); do
    holder=$(lease_holder "$image")
    [[ $holder == - ]] && return 0
    sleep 0.25
  done
  log "$image: lease still held (${holder:-unknown}) after $2 s"
  return 1
}

# rate_bytes RATE: a WAN bit rate as the emulator reads it (1gbit, 100mbit, 500kbit)
# in bytes per second.
rate_bytes() {
  awk -v r="$1" 'BEGIN {
    r = tolower(r); n = r + 0; u = r; sub(/^[0-9.]+ */, "", u)
    m = (u == "bit") ? 1 : (u == "kbit") ? 1e3 : (u == "mbit") ? 1e6 : (u == "gbit") ? 1e9 : -1
    if (m < 0 || n <= 0) exit 1
    printf "%.0f\n", n * m / 8 }' || die "bandwidth '$1': expected a number followed by bit, kbit, mbit or gbit"
}

# half_duration 75ms -> 37.5ms: the one-way delay of a round-trip time.
half_duration() {
  awk -v d="$1" 'BEGIN {
    n = d + 0; u = d; sub(/^[0-9.]+ */, "", u)
    if (u !~ /^(ns|us|ms|s)$/ || n <= 0) exit 1
    printf "%g%s\n", n / 2, u }' || die "RTT '$1': expected a number followed by ns, us, ms or s"
}

size_bytes() { numfmt --from=iec "${1%B}" 2>/dev/null || die "size '$1': expected e.g. 16M, 256M, 1G"; }

# random_file PATH BYTES: random data, reused while it has the right size.
random_file() {
  [[ $(stat -c %s "$1" 2>/dev/null) == "$2" ]] && return 0
  log "writing $1 ($2 bytes of random data)"
  head -c "$2" /dev/urandom >"$1.tmp" && mv "$1.tmp" "$1"
}

# image_tag zookeeper|cassandra: the tag of benchmarks/docker's image of that server, its
# version the build's (the parent pom's zookeeper.version; Cassandra's in CASSANDRA_POM,
# benchmarks/cassandra/pom.xml by default).
image_tag() {
  local version
  case $1 in
    zookeeper) version=$(sed -n 's:.*<zookeeper.version>\([^<]*\)</zookeeper.version>.*:\1:p' "$REPO/pom.xml" | head -n 1) ;;
    cassandra) version=$(sed -n 's:.*<version>\(5[^<]*\)</version>.*:\1:p' "${CASSANDRA_POM:-$REPO/benchmarks/cassandra/pom.xml}" | head -n 1) ;;
    *) die "image_tag: zookeeper or cassandra, not '$1'" ;;
  esac
  [[ -n $version ]] || die "image_tag: no version of $1 in the poms"
  echo "heliotrope/$1:$version"
}

# dockerd_up: the Docker daemon of benchmarks/docker running; OUR_DOCKERD=1 when this script
# started it (dockerd.sh start's exit 0; 4 when it already ran).
OUR_DOCKERD=0
dockerd_up() {
  local code=0
  "$REPO/benchmarks/docker/dockerd.sh" start >&2 || code=$?
  case $code in
    0) OUR_DOCKERD=1 ;;
    4) ;;
    *) die "the Docker daemon did not start (benchmarks/docker/dockerd.sh start: exit $code)" ;;
  esac
}

# dockerd_down: the daemon stopped if this script started it (dockerd.sh leaves it running
# while another run's containers are on it).
dockerd_down() {
  ((OUR_DOCKERD)) || return 0
  "$REPO/benchmarks/docker/dockerd.sh" stop >&2 || log "the Docker daemon was left running"
  OUR_DOCKERD=0
}

# gnuplot for the PNGs (Debian's gnuplot-nox); the tables and CSVs do without it.
ensure_gnuplot() {
  command -v gnuplot >/dev/null && return 0
  "$REPO/bin/install-packages" gnuplot-nox >&2 || log "gnuplot-nox could not be installed: no PNG"
}

# require_tools TOOL...: fails naming each missing tool and the Debian package that has it.
require_tools() {
  local t missing=()
  for t in "$@"; do command -v "$t" >/dev/null || missing+=("$t (package $(tool_package "$t"))"); done
  ((${#missing[@]} == 0)) || die "not installed: ${missing[*]}; bin/install-packages PACKAGE... installs them"
}

tool_package() {
  case $1 in
    nbdcopy|nbdsh|nbdinfo) echo libnbd-bin ;;
    nbdfuse|nbdkit|fio|curl|python3|gnuplot) echo "$1" ;;
    fusermount3) echo fuse3 ;;
    losetup|taskset|blkid) echo util-linux ;;
    mount|umount) echo mount ;;
    mkfs.ext4) echo e2fsprogs ;;
    qemu-system-x86_64) echo qemu-system-x86 ;;
    qemu-img|qemu-io) echo qemu-utils ;;
    java) echo openjdk-17-jre-headless ;;
    *) echo "unknown: see the script's --help" ;;
  esac
}
