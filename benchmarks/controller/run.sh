#!/usr/bin/env bash
# Controller metadata benchmark: a 3-node ZooKeeper ensemble and one controller on
# loopback, then MetadataBenchmark against them. Run with --help for the knobs.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
JAR=$REPO/benchmarks/target/benchmarks.jar

COUNTS=1000,100000,1000000
REPETITIONS=5
OUT=/tmp/controller-bench-$(date +%Y%m%d-%H%M%S)
WORK=
BASE_PORT=22180
FORCE_SYNC=yes
KEEP_WORK=0
START_TIMEOUT=300

usage() {
  cat <<USAGE
Usage: benchmarks/controller/run.sh [options]

Starts a 3-node ZooKeeper ensemble (one JVM per node, from benchmarks.jar) and one
'bin/helio controller' on 127.0.0.1, then runs
io.heliotrope.benchmarks.controller.MetadataBenchmark against them: for each count of
dirty blocks (random distinct blocks of a 1 TiB image, written in random order 1 to 4 times
each with versions numbered as a site numbers them, 1% trimmed),
on a fresh image per repetition, it measures as a site sees them (storage-server's
GrpcController):
  close            Flush of all dirty blocks with release, until the new metaSeq arrives
  open from 0      another site takes the lease and syncs the whole log
  open recent      the first site takes the lease back from the metaSeq it last saw
  compact          CompactImage
  open snapshot    open from 0 again, now served from the snapshot
and metadata bytes per dirty block: the controller's GetImage.metadata_bytes after the
close and after compaction, and ZooKeeper's own zk_approximate_data_size growth for the
image (read from the leader with mntr). Prints one table of medians with the goals
(close of 100K blocks under 1 s; at most 6 bytes per block after compaction) and writes
every repetition to a CSV.

Options (defaults in brackets):
  --counts LIST        dirty-block counts, comma separated [$COUNTS]
  --repetitions N      repetitions per count; the table shows medians [$REPETITIONS]
  --out DIR            results: controller-metadata.csv, summary.txt, logs/ [/tmp/controller-bench-<time>]
  --work DIR           ZooKeeper data, removed on exit unless --keep-work [a new temp dir]
  --base-port PORT     first of 10 consecutive loopback ports (9 ZooKeeper, 1 controller) [$BASE_PORT]
  --no-fsync           ZooKeeper forceSync=no (default: fsync every commit, as in production)
  --keep-work          keep the ZooKeeper data directories
  -h, --help           this text

benchmarks.jar is built first when missing or older than the module's sources; the
controller runs through bin/helio, which builds the distribution when it is stale.
JAVA_OPTS is passed to the controller's JVM.
USAGE
}

while [[ $# -gt 0 ]]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --counts) COUNTS=$2; shift 2 ;;
    --repetitions) REPETITIONS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --base-port) BASE_PORT=$2; shift 2 ;;
    --no-fsync) FORCE_SYNC=no; shift ;;
    --keep-work) KEEP_WORK=1; shift ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }

PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [[ $KEEP_WORK == 1 ]]; then log "ZooKeeper data kept in $WORK"; elif [[ -n $WORK ]]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT

# Prints a node's answer to a four-letter word; empty when it does not answer.
four_letter() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1" && printf '%s' "$2" >&3 && timeout 2 cat <&3) 2>/dev/null || true
}

# Waits until $1 (a shell condition) holds, failing after $2 seconds with message $3.
await() {
  local deadline=$((SECONDS + $2))
  until eval "$1"; do
    if ((SECONDS >= deadline)); then log "timed out after $2 s: $3"; exit 1; fi
    sleep 0.2
  done
}

if [[ ! -f $JAR || -n $(find "$REPO/benchmarks/src" "$REPO/benchmarks/pom.xml" -newer "$JAR" -print -quit) ]]; then
  log "building benchmarks.jar"
  (cd "$REPO" && ./mvnw -q -B -DskipTests package -pl benchmarks)
fi

mkdir -p "$OUT/logs"
WORK=${WORK:-$(mktemp -d /tmp/controller-bench-zk.XXXXXX)}
for ((port = BASE_PORT; port < BASE_PORT + 10; port++)); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    log "port $port is in use; pick other ports with --base-port"; exit 1
  fi
done

CONNECT=
for id in 1 2 3; do
  CONNECT+="${CONNECT:+,}127.0.0.1:$((BASE_PORT + id - 1))"
done
for id in 1 2 3; do
  dir=$WORK/zk-$id
  mkdir -p "$dir/data"
  echo "$id" >"$dir/data/myid"
  cat >"$dir/zoo.cfg" <<CFG
tickTime=2000
initLimit=10
syncLimit=5
dataDir=$dir/data
clientPortAddress=127.0.0.1
clientPort=$((BASE_PORT + id - 1))
admin.enableServer=false
4lw.commands.whitelist=srvr,mntr
forceSync=$FORCE_SYNC
server.1=127.0.0.1:$((BASE_PORT + 3)):$((BASE_PORT + 6))
server.2=127.0.0.1:$((BASE_PORT + 4)):$((BASE_PORT + 7))
server.3=127.0.0.1:$((BASE_PORT + 5)):$((BASE_PORT + 8))
CFG
  setsid java -Xmx1g -Dorg.slf4j.simpleLogger.showDateTime=true -cp "$JAR" \
    org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" </dev/null >"$OUT/logs/zookeeper-$id.log" 2>&1 &
  PIDS+=($!)
done
log "ZooKeeper $CONNECT (forceSync=$FORCE_SYNC, data in $WORK)"
quorum() {
  local port modes=""
  for port in $BASE_PORT $((BASE_PORT + 1)) $((BASE_PORT + 2)); do
    modes+=$(four_letter "$port" srvr | sed -n 's/^Mode: //p')" "
  done
  [[ $(grep -o leader <<<"$modes" | wc -l) == 1 && $(grep -o follower <<<"$modes" | wc -l) == 2 ]]
}
await quorum 60 "ZooKeeper quorum (logs in $OUT/logs)"

CONTROLLER_PORT=$((BASE_PORT + 9))
setsid "$REPO/bin/helio" controller --zookeeper "$CONNECT" --grpc-port "$CONTROLLER_PORT" \
  </dev/null >"$OUT/logs/controller.log" 2>&1 &
PIDS+=($!)
await "grep -q 'controller listening on' '$OUT/logs/controller.log'" "$START_TIMEOUT" "controller start (log: $OUT/logs/controller.log)"
log "controller on 127.0.0.1:$CONTROLLER_PORT"

java -Xmx4g -cp "$JAR" io.heliotrope.benchmarks.controller.MetadataBenchmark \
  --controller "127.0.0.1:$CONTROLLER_PORT" --zookeeper "$CONNECT" --counts "$COUNTS" --repetitions "$REPETITIONS" \
  --csv "$OUT/controller-metadata.csv" | tee "$OUT/summary.txt"
