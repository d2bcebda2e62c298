#!/usr/bin/env bash
# Follow the sun (issue #24 part 3, the Supercloud paper's Fig. 6 and 7): a 3-node ZooKeeper
# ensemble of plain processes under a diurnal two-region load, placed in virginia only,
# spread over both regions, or by the scheduler's ensemble policy (moved cold). Run with --help.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
HELIO=$REPO/bin/helio

PLACEMENT=all
DAY=5m
DAYS=2
PEAK=40
SESSIONS=12
RTT=75ms
BANDWIDTH=1gbit
PORT_OFFSET=200
DECIDE=10s
REPORT=2s
WINDOW=
DWELL=
THRESHOLD=10%
STAMP=$(date +%Y%m%d-%H%M%S)
OUT=/var/tmp/sun-results/follow-$STAMP
WORK=/var/tmp/sun-work
DOCKER=0

usage() {
  cat <<USAGE
Usage: benchmarks/sun/follow.sh [options]

Follow the sun, as the Supercloud paper's section 4.1.1 (Fig. 6, 7), on 'helio up' (sites
virginia and taiwan, --rtt apart). Clients in both regions read and write 64-byte znodes
(9:1) of a 3-node ZooKeeper 3.9 ensemble of plain processes, at a rate that follows a
diurnal curve shaped like the paper's MSN trace, the two regions 12 hours apart, for --days
days of --day each. Every server's data directory is ext4 on its own Heliotrope image,
mounted at its site (nbdfuse + losetup + mount). Each site has its own loopback range
(virginia 127.0.1.x, taiwan 127.0.2.x); every byte between a client or server and a server
at the other site crosses an emulated WAN link (--rtt, --bandwidth). Placements:

  virginia   all three servers in virginia (the paper's "US ensemble")
  spread     zk1 in taiwan, zk2 and zk3 (the leader) in virginia (its "global ensemble")
  scheduler  starts in virginia; the clients report their load to the scheduler
             (the built-in ensemble policy, the application's workload window scaled to
             the compressed day: --window), which is asked every --decide-every what it would
             do; its moves are carried out cold (stop, image detached and attached at
             the other site, started with the same myid and data), one server at a time,
             the leader last, and recorded on placeholder VMs zk1..zk3 as migrations.

Options (defaults in brackets):
  --placement P      virginia, spread, scheduler or all (one after the other) [$PLACEMENT]
  --day D            how long a day of the trace lasts, e.g. 5m, 60s [$DAY]
  --days N           days of the trace [$DAYS]
  --peak RATE        requests per second of a region at its peak [$PEAK]
  --sessions N       ZooKeeper sessions per region, session i on server i mod 3 [$SESSIONS]
  --rtt D            round trip between the sites [$RTT]
  --bandwidth R      WAN capacity each way [$BANDWIDTH]
  --decide-every D   how often the scheduler is asked [$DECIDE]
  --report-every D   how often the clients report their load [$REPORT]
  --window D         the application's workload window (helio app create --window) [one 144th
                     of a day, at least 2 reports]
  --dwell D          a server stays this long after a move [one 12th of a day]
  --threshold T      the gain a move must bring (helio app create --threshold) [$THRESHOLD]
  --port-offset N    helio up's ports are its defaults + N [$PORT_OFFSET]
  --out DIR          results [/var/tmp/sun-results/follow-<time>]
  --docker           run the servers in containers (benchmarks/docker: the same servers and
                     options, host networking, Testcontainers), as their users would
  --work DIR         helio's data and the servers' mounts, emptied first [$WORK]
  -h, --help         this text

Writes into --out, per placement P: P/latency.csv (every request: t_ms, region, op,
latency_us, attempts, outcome), P/timeline.csv (per second: trace hour, each region's rate,
the servers' sites, leader, moving), P/moves.csv, P/decisions.csv, P/wan.csv (bytes over
the servers' links by port: client, quorum, election); then latency-cdf.png (Fig. 7),
timeline.png (Fig. 6: the curve and each placement's sites and moves), summary.csv and
summary.txt (mean and percentiles of latency per placement and region, migrations).
Needs root, /dev/fuse, nbdfuse, losetup, mkfs.ext4. Stops only what it started.
USAGE
}

while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --placement) PLACEMENT=$2; shift 2 ;;
    --day) DAY=$2; shift 2 ;;
    --days) DAYS=$2; shift 2 ;;
    --peak) PEAK=$2; shift 2 ;;
    --sessions) SESSIONS=$2; shift 2 ;;
    --rtt) RTT=$2; shift 2 ;;
    --bandwidth) BANDWIDTH=$2; shift 2 ;;
    --decide-every) DECIDE=$2; shift 2 ;;
    --report-every) REPORT=$2; shift 2 ;;
    --window) WINDOW=$2; shift 2 ;;
    --dwell) DWELL=$2; shift 2 ;;
    --threshold) THRESHOLD=$2; shift 2 ;;
    --port-offset) PORT_OFFSET=$2; shift 2 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    --docker) DOCKER=1; shift ;;
    --work) WORK=$(realpath -m "$2"); shift 2 ;;
    *) echo "follow.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=../geo/lib.sh
source "$REPO/benchmarks/geo/lib.sh"

# millis D: 5m, 60s, 1500ms, 1h -> milliseconds.
millis() {
  awk -v d="$1" 'BEGIN {
    n = d + 0; u = d; sub(/^[0-9.]+ */, "", u)
    m = (u == "ms") ? 1 : (u == "s") ? 1000 : (u == "m" || u == "min") ? 60000 : (u == "h") ? 3600000 : -1
    if (m < 0 || n <= 0) exit 1
    printf "%.0f\n", n * m }' || die "duration '$1': expected a number followed by ms, s, m or h"
}

case $PLACEMENT in
  all) PLACEMENTS=(virginia spread scheduler) ;;
  virginia|spread|scheduler) PLACEMENTS=("$PLACEMENT") ;;
  *) die "--placement: virginia, spread, scheduler or all, not '$PLACEMENT'" ;;
esac
DAY_MS=$(millis "$DAY") DECIDE_MS=$(millis "$DECIDE") REPORT_MS=$(millis "$REPORT")
WINDOW_MS=$(millis "${WINDOW:-$((DAY_MS / 144 > 2 * REPORT_MS ? DAY_MS / 144 : 2 * REPORT_MS))ms}")
DWELL_MS=$(millis "${DWELL:-$((DAY_MS / 12))ms}")
((EUID == 0)) || die "needs root (losetup, mount)"
require_tools nbdfuse fusermount3 losetup mkfs.ext4 curl java python3
SITES=(virginia taiwan)

mkdir -p "$OUT/logs"
set_up_ports "$PORT_OFFSET"
DATA=$WORK/data
export XDG_CONFIG_HOME=$WORK/config HELIO_CONTROLLER=$CONTROLLER
export ZK_CLASSPATH=$REPO/benchmarks/target/benchmarks.jar

NODE_DIRS=() DRIVER=
cleanup() {
  local dir
  [[ -z $DRIVER ]] || stop "$DRIVER"   # no more moves, then the servers
  for dir in "${NODE_DIRS[@]}"; do
    bash "$HERE/node.sh" stop "$dir" >>"$OUT/logs/cleanup.log" 2>&1 || true
    bash "$HERE/node.sh" detach "$dir" >>"$OUT/logs/cleanup.log" 2>&1 || true
  done
  stop_all
  dockerd_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

log "building the distribution and benchmarks.jar (./mvnw -o -pl cli,benchmarks -am package; logs/build.log)"
(cd "$REPO" && ./mvnw -B -q -o -pl cli,benchmarks -am package -DskipTests) >>"$OUT/logs/build.log" 2>&1 ||
  die "the build failed (see $OUT/logs/build.log)"
if ((DOCKER)); then
  dockerd_up
  log "building the container images (benchmarks/docker/build-images.sh; logs/build.log)"
  "$REPO/benchmarks/docker/build-images.sh" >>"$OUT/logs/build.log" 2>&1 || die "building the images failed (see $OUT/logs/build.log)"
  export ZK_DOCKER=1
fi

remove_tree "$WORK" && mkdir -p "$DATA" "$XDG_CONFIG_HOME"

# helio up; its scheduler's own rounds are set far apart (24 h): they would live-migrate the
# placeholder VMs, which do not run. The benchmark asks it (Explain) every --decide-every.
log "helio up ($RTT, $BANDWIDTH; ports +$PORT_OFFSET; data in $DATA); workload window $((WINDOW_MS))ms"
START_TIMEOUT=240 helio_up up "$DATA" "$RTT" "$BANDWIDTH" --demo-size 16M --scheduler-period 24h ||
  die "helio up did not start (see $OUT/logs/up.log)"

# Three ports for every server (each listens on its own address): client, quorum, election.
ZK_PORTS=$(free_port),$(free_port),$(free_port)
IFS=, read -r CLIENT_PORT QUORUM_PORT ELECTION_PORT <<<"$ZK_PORTS"

# zoo_cfg DIR SITE_INDEX: the configuration of DIR's server when it runs at that site; it
# names every server by this site's address for it (127.0.S.1N), its own included.
zoo_cfg() {
  local dir=$1 s=$2 n=${1##*/zk} j
  {
    echo "tickTime=500"
    echo "initLimit=40"
    echo "syncLimit=10"
    echo "dataDir=$dir/data"
    echo "clientPortAddress=127.0.$((s + 1)).$((10 + n))"
    echo "clientPort=$CLIENT_PORT"
    echo "maxClientCnxns=0"
    echo "admin.enableServer=false"
    echo "4lw.commands.whitelist=srvr,mntr"
    for j in 1 2 3; do echo "server.$j=127.0.$((s + 1)).$((10 + j)):$QUORUM_PORT:$ELECTION_PORT"; done
  } >"$dir/zoo-${SITES[s]}.cfg"
}

run_placement() {
  local p=$1 initial n dir site extra=()
  case $p in
    virginia|scheduler) initial=(virginia virginia virginia) ;;
    spread) initial=(taiwan virginia virginia) ;;  # a new ensemble elects its highest myid: the leader is in virginia
  esac
  mkdir -p "$OUT/$p" "$WORK/$p"
  for n in 1 2 3; do
    dir=$WORK/$p/zk$n site=${initial[n - 1]}
    mkdir -p "$dir" && NODE_DIRS+=("$dir")
    zoo_cfg "$dir" 0 && zoo_cfg "$dir" 1
    helio image create "$p-zk$n" --size 64M --home "$site" >>"$OUT/logs/helio.log"
  done
  if [[ $p == scheduler ]]; then
    for n in 1 2 3; do
      helio vm create "zk$n" --site "${initial[n - 1]}" --disk "$p-zk$n" --memory 128M >>"$OUT/logs/helio.log"
    done
    helio app create zk --policy ensemble --vms zk1,zk2,zk3 --leader zk1 --dwell "$((DWELL_MS))ms" --window "$((WINDOW_MS))ms" \
      --threshold "$THRESHOLD" >>"$OUT/logs/helio.log"
    extra=(--controller "$CONTROLLER" --app zk --report-ms "$REPORT_MS" --decide-ms "$DECIDE_MS")
  fi
  log "$p: ${initial[*]}; $DAYS days of $DAY, peak $PEAK requests/s per region (logs/driver-$p.log)"
  # In the background: a TERM or Ctrl-C to this script is handled at once, not after the run.
  DRIVER=driver-$p
  launch "$DRIVER" java -Xmx256m -Dorg.slf4j.simpleLogger.defaultLogLevel=error -Dorg.slf4j.simpleLogger.log.io.heliotrope.benchmarks=info \
    -Dorg.slf4j.simpleLogger.showDateTime=true -Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss -cp "$ZK_CLASSPATH" \
    io.heliotrope.benchmarks.sun.FollowTheSun \
    --out "$OUT/$p" --work "$WORK/$p" --node-script "$HERE/node.sh" --sites "$(IFS=,; echo "${SITES[*]}")" \
    --initial "$(IFS=,; echo "${initial[*]}")" --day-ms "$DAY_MS" --days "$DAYS" --rtt "$RTT" --bandwidth "$BANDWIDTH" \
    --ports "$ZK_PORTS" --nbd "virginia=127.0.0.1:$NBD_V,taiwan=127.0.0.1:$NBD_T" --image-prefix "$p-" \
    --peak "$PEAK" --sessions "$SESSIONS" "${extra[@]}"
  wait "${PID[$DRIVER]}" || { tail -n 20 "$OUT/logs/$DRIVER.log" >&2; die "$p: the driver failed (see logs/$DRIVER.log and $WORK/$p/node.log)"; }
  unset "PID[$DRIVER]"
  DRIVER=
  [[ $p == scheduler ]] && helio app show zk >"$OUT/$p/app-show.txt" 2>&1
  cp "$WORK/$p/node.log" "$OUT/logs/node-$p.log"
  for n in 1 2 3; do cp "$WORK/$p/zk$n/zk.log" "$OUT/logs/zk$n-$p.log" 2>/dev/null || true; done
}

for p in "${PLACEMENTS[@]}"; do run_placement "$p"; done
ensure_gnuplot
python3 "$HERE/sun_report.py" "$OUT" "$DAY_MS" "${PLACEMENTS[@]}" | tee "$OUT/summary.txt"
log "results in $OUT"
