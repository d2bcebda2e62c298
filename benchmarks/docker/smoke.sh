#!/usr/bin/env bash
# Proves the container path end to end: one ZooKeeper server and one Cassandra node started
# through the launcher on a 127.0.x address, asked whether they serve, stopped. Run with --help.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CASSANDRA_DIR=${CASSANDRA_DIR:-$REPO/benchmarks/cassandra}
ADDRESS=127.0.9.11
OUT=/var/tmp/docker-smoke/$(date +%Y%m%d-%H%M%S)

usage() {
  cat <<EOF2
Usage: benchmarks/docker/smoke.sh [--out DIR]

With the daemon of dockerd.sh (started, and stopped at the end, when it does not run) and
the images of build-images.sh (built when missing or stale):
  1. heliotrope/zookeeper:3.9.5 through container.sh start, standalone on $ADDRESS:<free
     port>, its data in --out; 'srvr' must answer "Mode: standalone"; container.sh stop
  2. heliotrope/cassandra:5.0.9 through container.sh run (as move.sh would launch it), one
     node on $ADDRESS with \$CASSANDRA_DIR's node.yaml and jvm17.options; nodetool status
     from the host's class path must show it UN; TERM to the run stops it
Prints the time of each step; writes logs/ and summary.txt into --out
[/var/tmp/docker-smoke/<time>]. CASSANDRA_DIR [$CASSANDRA_DIR]. Needs root.
EOF2
}
while (($#)); do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --out) OUT=$(realpath -m "$2"); shift 2 ;;
    *) echo "smoke.sh: unknown option $1 (see --help)" >&2; exit 1 ;;
  esac
done

# shellcheck source=../geo/lib.sh
source "$REPO/benchmarks/geo/lib.sh"
[[ -f $CASSANDRA_DIR/node.yaml ]] || die "no $CASSANDRA_DIR/node.yaml (set CASSANDRA_DIR)"
mkdir -p "$OUT/logs"
eval "$("$HERE/dockerd.sh" env)"
ZK_ID=
cleanup() {
  [[ -z $ZK_ID ]] || "$HERE/container.sh" stop "$ZK_ID" || true
  stop_all
  dockerd_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# timed STEP CMD...: CMD, its seconds appended to summary.txt.
timed() {
  local step=$1 start=$SECONDS
  shift
  "$@"
  printf '%-44s %4d s\n' "$step" $((SECONDS - start)) | tee -a "$OUT/summary.txt"
}

# shellcheck disable=SC2016 # the inner shell expands them
four_letters() { timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2"; echo "$3" >&3; cat <&3' _ "$@"; }

timed "dockerd.sh start" dockerd_up
timed "build-images.sh" env CASSANDRA_POM="$CASSANDRA_DIR/pom.xml" "$HERE/build-images.sh"
[[ -f $REPO/benchmarks/target/benchmarks.jar ]] ||
  timed "benchmarks.jar" bash -c "cd '$REPO' && ./mvnw -B -q -o -pl benchmarks -am package -DskipTests"

# 1. ZooKeeper, detached (start / stop by id): the way node.sh would.
zk=$OUT/zk1 zk_port=$(free_port)
mkdir -p "$zk/data"
echo 1 >"$zk/data/myid"
printf '%s\n' "tickTime=500" "dataDir=$zk/data" "clientPortAddress=$ADDRESS" "clientPort=$zk_port" \
  "admin.enableServer=false" "4lw.commands.whitelist=srvr,mntr" >"$zk/zoo.cfg"
zk_start() {
  ZK_ID=$("$HERE/container.sh" start --image "$(image_tag zookeeper)" --name "smoke-zk1-$$" --bind "$zk:$zk" \
    --env "JVM_OPTS=-Xmx96m -XX:+UseSerialGC -XX:TieredStopAtLevel=1" --wait-log 'PrepRequestProcessor.*started' \
    --timeout 120s -- "$zk/zoo.cfg")
}
timed "zookeeper: container.sh start" zk_start
# serving: srvr says its mode (right after the ready line it may still say "not currently serving").
zk_serves() { four_letters "$ADDRESS" "$zk_port" srvr >"$OUT/zk-srvr.txt" 2>&1 && grep -q "Mode: standalone" "$OUT/zk-srvr.txt"; }
deadline=$((SECONDS + 30))
until zk_serves; do
  ((SECONDS < deadline)) || die "ZooKeeper in $ZK_ID does not serve on $ADDRESS:$zk_port (logs: container.sh logs $ZK_ID)"
  sleep 0.2
done
log "zookeeper: $(grep -E '^(Zookeeper version|Mode)' "$OUT/zk-srvr.txt" | tr '\n' ' ')"
"$HERE/container.sh" logs "$ZK_ID" >"$OUT/logs/zk1.log" 2>&1
timed "zookeeper: container.sh stop" "$HERE/container.sh" stop "$ZK_ID"
ZK_ID=

# 2. Cassandra in the foreground, started as move.sh starts its nodes with --docker (its
# lib.sh's node_conf and start_node, whose files it finds in $HERE: CASSANDRA_DIR here).
# shellcheck source=../cassandra/lib.sh
source "$CASSANDRA_DIR/lib.sh"
WORK=$OUT DOCKER=1 HEAP=512m TOKENS=8 RING_DELAY_MS=1000 NODE_TIMEOUT=300 STORAGE_PORT=$(free_port) NATIVE_PORT=$(free_port)
cassandra_start() {
  HERE=$CASSANDRA_DIR start_node cassandra "$OUT/node1/data" "$ADDRESS" "$ADDRESS" virginia "$ADDRESS:$STORAGE_PORT" \
    -Dcassandra.skip_wait_for_gossip_to_settle=0
}
timed "cassandra: container.sh run until Startup complete" cassandra_start
cp=$OUT/cassandra.classpath
(cd "$REPO" && ./mvnw -B -q -o -f "$CASSANDRA_DIR/pom.xml" dependency:build-classpath -Dmdep.outputFile="$cp") >>"$OUT/logs/build.log" 2>&1 ||
  die "resolving Cassandra's class path failed (see $OUT/logs/build.log)"
CASSANDRA_CP=$(cat "$cp")
nodetool_status() { HERE=$CASSANDRA_DIR nodetool cassandra status | tee "$OUT/nodetool-status.txt"; }
timed "cassandra: nodetool status (host JVM)" nodetool_status
grep -q "^UN  $ADDRESS" "$OUT/nodetool-status.txt" || die "nodetool status does not show $ADDRESS up and normal"
timed "cassandra: TERM to the run (stop, rm)" stop cassandra
[[ -z $(docker ps -aq --filter "name=smoke-") ]] || die "a smoke container is left: $(docker ps -a --filter name=smoke-)"
log "both servers served from their containers and are gone; results in $OUT"
