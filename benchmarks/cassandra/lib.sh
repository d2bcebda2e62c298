# Cassandra nodes as plain JVM processes, their WAN links and clients (sourced by move.sh).
# Expects HERE, REPO, OUT, WORK and the knobs of move.sh; geo/lib.sh for launch/stop/log.
# shellcheck shell=bash

declare -A JMX=()   # node name -> its local JMX port (nodetool)

# prepare_cassandra: the benchmarks jar (load client, WAN links) and Cassandra's class path
# (benchmarks/cassandra/pom.xml; the first run downloads Cassandra, so it needs the network once);
# with --docker, the Docker daemon of benchmarks/docker and the image built from that class path.
prepare_cassandra() {
  log "building the benchmarks jar (logs/build.log)"
  (cd "$REPO" && ./mvnw -B -q -o -pl benchmarks -am package -DskipTests) >>"$OUT/logs/build.log" 2>&1 ||
    die "building benchmarks failed (see $OUT/logs/build.log)"
  BENCH_JAR=$REPO/benchmarks/target/benchmarks.jar
  local cp=$WORK/cassandra.classpath
  if [[ ! -s $cp ]]; then
    log "resolving Cassandra $(sed -n 's/.*<version>\(5[^<]*\)<.*/\1/p' "$HERE/pom.xml") (offline first, then online)"
    (cd "$REPO" && { ./mvnw -B -q -o -f "$HERE/pom.xml" dependency:build-classpath -Dmdep.outputFile="$cp" ||
      ./mvnw -B -q -f "$HERE/pom.xml" dependency:build-classpath -Dmdep.outputFile="$cp"; }) >>"$OUT/logs/build.log" 2>&1 ||
      die "resolving Cassandra failed (see $OUT/logs/build.log)"
  fi
  CASSANDRA_CP=$(cat "$cp")
  if ((DOCKER)); then
    dockerd_up
    log "building the container images (benchmarks/docker/build-images.sh; logs/build.log)"
    CASSANDRA_POM=$HERE/pom.xml "$REPO/benchmarks/docker/build-images.sh" >>"$OUT/logs/build.log" 2>&1 ||
      die "building the images failed (see $OUT/logs/build.log)"
  fi
}

# node_conf NAME DIR LISTEN BROADCAST DC SEEDS: the configuration of node NAME with its data
# in DIR, in $WORK/conf/NAME (outside DIR: it belongs to where the node runs).
node_conf() {
  local name=$1 dir=$2 listen=$3 broadcast=$4 dc=$5 seeds=$6 conf=$WORK/conf/$1
  mkdir -p "$conf" "$dir"
  sed -e "s|@DIR@|$dir|g; s|@LISTEN@|$listen|; s|@BROADCAST@|$broadcast|; s|@SEEDS@|$seeds|" \
    -e "s|@TOKENS@|$TOKENS|; s|@STORAGE_PORT@|$STORAGE_PORT|; s|@NATIVE_PORT@|$NATIVE_PORT|" \
    "$HERE/node.yaml" >"$conf/cassandra.yaml"
  printf 'dc=%s\nrack=rack1\nprefer_local=true\n' "$dc" >"$conf/cassandra-rackdc.properties"
  echo "$conf"
}

# start_node NAME DIR LISTEN BROADCAST DC SEEDS [JVM OPTIONS...]: node NAME started (log
# logs/NAME.log), returns once it serves CQL.
start_node() {
  local name=$1 dir=$2 conf
  conf=$(node_conf "$@")
  shift 6
  [[ -n ${JMX[$name]:-} ]] || JMX[$name]=$(free_port)
  local opts=(@"$HERE/jvm17.options" -Xms"$HEAP" -Xmx"$HEAP" -XX:MaxDirectMemorySize=256m
    -Dcassandra.config="file://$conf/cassandra.yaml" -Dcassandra-rackdc.properties="file://$conf/cassandra-rackdc.properties"
    -Dlogback.configurationFile="$HERE/logback.xml" -Dcassandra.logdir="$OUT/logs" -Dcassandra.storagedir="$conf"
    -Dcassandra.jmx.local.port="${JMX[$name]}" -Dcassandra.ring_delay_ms="$RING_DELAY_MS" "$@")
  if ((DOCKER)); then
    # The same server and options in a container on the host's network (benchmarks/docker):
    # only this node's data (its image's mount) and configuration, this directory and the logs
    # bound in. Never a directory above the data: the container would keep every mount below
    # it, other nodes' images included, and a moved node's file system would stay mounted in
    # it after the host's umount (review #24, B1).
    launch "$name" "$REPO/benchmarks/docker/container.sh" run --image "$(CASSANDRA_POM=$HERE/pom.xml image_tag cassandra)" --name "cassandra-$name-$$" \
      --bind "$dir" --bind "$conf" --bind "$HERE" --bind "$OUT/logs" --env "JVM_OPTS=${opts[*]}" --wait-log "Startup complete" \
      --timeout "${NODE_TIMEOUT}s"
  else
    launch "$name" java "${opts[@]}" -cp "$CASSANDRA_CP" org.apache.cassandra.service.CassandraDaemon
  fi
  wait_for_line "$name" "Startup complete" "$NODE_TIMEOUT" || die "node $name did not start"
}

# stop_node NAME: node NAME stopped; with --docker its container removed for sure (container.sh
# gone), so that it holds no mount when the node's image is detached.
stop_node() {
  stop "$1"
  if ((DOCKER)) && ! "$REPO/benchmarks/docker/container.sh" gone "cassandra-$1-$$"; then
    log "the container of node $1 is still there"
    return 1
  fi
}

# nodetool NAME ARGS...: Cassandra's nodetool against node NAME.
nodetool() {
  local name=$1
  shift
  java @"$HERE/jvm17.options" -Xmx128m -XX:TieredStopAtLevel=1 -cp "$CASSANDRA_CP" \
    -Dlogback.configurationFile="$HERE/logback.xml" org.apache.cassandra.tools.NodeTool \
    -h 127.0.0.1 -p "${JMX[$name]}" "$@"
}

# --- one way: addresses, links, clients ---

SITES=(virginia taiwan)   # site s+1 is SITES[s]: nodes listen on 127.0.(s+1).N, links on 127.0.(11+s).N
listen_of() { echo "127.0.$1.$2"; }           # listen_of SITE_INDEX(1|2) NODE
broadcast_of() { echo "127.0.$((10 + $1)).$2"; }

event() { echo "$(date +%s.%N | cut -c1-14),$1" >>"$DIR/events.csv"; log "$WAY_NOW: $1"; }

# start_wan: a link per node address and port (both sites, nodes 1-3), counted into wan.csv.
start_wan() {
  local s i links=()
  for s in 1 2; do
    for i in 1 2 3; do
      links+=("s$s-n$i-storage=$(broadcast_of $s $i):$STORAGE_PORT>$(listen_of $s $i):$STORAGE_PORT"
        "s$s-n$i-native=$(broadcast_of $s $i):$NATIVE_PORT>$(listen_of $s $i):$NATIVE_PORT")
    done
  done
  launch "$WAY_NOW-wan" java -Xmx192m -XX:+UseSerialGC -cp "$BENCH_JAR" io.heliotrope.benchmarks.cassandra.CassandraWan \
    --delay "$DELAY" --bandwidth "$BANDWIDTH" --csv "$DIR/wan.csv" "${links[@]}"
  wait_for_line "$WAY_NOW-wan" "cassandra-wan:" 60 || die "the WAN links did not start (addresses in use?)"
}

# client_cmd MODE SITE_INDEX CONTACT: CMD, CassandraLoad as a client of that site (add its arguments).
client_cmd() {
  CMD=(java -Xmx256m -XX:+UseSerialGC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$BENCH_JAR"
    io.heliotrope.benchmarks.cassandra.CassandraLoad "$1" --contact "$3:$NATIVE_PORT" --dc "${SITES[$2 - 1]}"
    --keys "$KEYS" --site-prefix "$(broadcast_of "$2" '')=$(listen_of "$2" '')")
}

# inspect CONTACT TOKENS: the token map into TOKENS, every node's streamed bytes appended to
# streams.csv; between events "inspect" and "inspect done", which report.py leaves out of the
# move's time (a driver JVM: 6-8 s of the benchmark's own work).
inspect() {
  client_cmd inspect 1 "$1"
  event inspect
  "${CMD[@]}" --tokens "$2" --streams "$DIR/streams.csv" >>"$OUT/logs/$WAY_NOW-inspect.log" 2>&1 ||
    die "reading the cluster's state failed (see $OUT/logs/$WAY_NOW-inspect.log)"
  event "inspect done"
}

# helio_bytes NAME: Heliotrope's peer bytes between the sites so far (virginia's counts, sent
# and received) into peer-NAME.txt.
helio_bytes() {
  peer_totals "http://127.0.0.1:$METRICS_V/metrics" >"$DIR/peer-$1.txt" || die "virginia's peer bytes could not be read"
}

# start_load: a client per region (virginia's to its node 1, taiwan's across the WAN), and the host CPU sampler.
start_load() {
  local s contact site
  for s in 1 2; do
    site=${SITES[s - 1]}
    contact=$(listen_of 1 1)
    ((s == 1)) || contact=$(broadcast_of 1 1)
    client_cmd run "$s" "$contact"
    launch "$WAY_NOW-client-$site" "${CMD[@]}" --threads "$THREADS" --think-ms "$THINK_MS" --csv "$DIR/client-$site.csv"
  done
  for site in "${SITES[@]}"; do
    wait_for_line "$WAY_NOW-client-$site" "threads running" 120 || die "the $site client did not start"
  done
  # Host CPU busy % per second, of everything that runs on this machine.
  launch "$WAY_NOW-cpu" bash -c 'echo unix_s,busy_percent; read -r _ a b c d e f g h _ </proc/stat
    while sleep 1; do read -r _ A B C D E F G H _ </proc/stat
      t=$((A + B + C + D + E + F + G + H - a - b - c - d - e - f - g - h)) idle=$((D + E - d - e))
      echo "$(date +%s),$((t > 0 ? 100 * (t - idle) / t : 0))"
      a=$A b=$B c=$C d=$D e=$E f=$F g=$G h=$H; done'
}

# await_up OBSERVER SITE_INDEX NODE: until OBSERVER's log says the node at that site is UP.
await_up() {
  wait_for_line "$1" "InetAddress /$(broadcast_of "$2" "$3"):$STORAGE_PORT is now UP" "$NODE_TIMEOUT" ||
    die "$1 never saw node $3 at ${SITES[$2 - 1]} UP"
}

# run_way WAY: a fresh cluster at virginia, loaded, under load, moved to taiwan; results in $OUT/WAY.
run_way() {
  WAY_NOW=$1 DIR=$OUT/$1
  remove_tree "${WORK:?}/$1" && mkdir -p "$DIR" "$WORK/$1"
  echo "unix_s,event" >"$DIR/events.csv"
  log "== $1: three nodes at virginia, $KEYS keys, clients at both sites"
  [[ $1 == heliotrope ]] && start_helio
  start_wan
  local i seeds
  seeds=$(broadcast_of 1 1):$STORAGE_PORT
  for i in 1 2 3; do
    [[ $1 == heliotrope ]] && attach "$i" 1 mkfs
    start_node "$1-n$i-virginia" "$(node_dir "$1" "$i" virginia)" "$(listen_of 1 "$i")" "$(broadcast_of 1 "$i")" virginia "$seeds"
    NODE_AT[$i]=$1-n$i-virginia
  done
  client_cmd load 1 "$(listen_of 1 1)"
  "${CMD[@]}" >>"$OUT/logs/$1-load.log" 2>&1 || die "loading the keys failed (see logs/$1-load.log)"
  inspect "$(listen_of 1 1)" "$DIR/tokens-before.csv"
  start_load
  event steady
  sleep "$STEADY"
  event move-start
  [[ $1 == heliotrope ]] && helio_bytes before
  "move_$1"
  [[ $1 == heliotrope ]] && helio_bytes after
  event move-end
  sleep "$AFTER"
  event end
  [[ $1 == heliotrope ]] && helio_bytes end   # the pull goes on after the move
  stop "$1-client-virginia"; stop "$1-client-taiwan"; stop "$1-cpu"
  cp "$OUT/logs/$1-cpu.log" "$DIR/cpu.csv"
  inspect "$(listen_of 2 1)" "$DIR/tokens-after.csv"
  for i in 1 2 3; do nodetool "${NODE_AT[$i]}" netstats >>"$DIR/netstats.txt" 2>&1 || true; done
  stop_way
}
declare -A NODE_AT=()   # node number -> the name of its running process

# --- the application's way ---

# node_dir WAY NODE SITE: a node's data (for heliotrope, where its image is mounted).
node_dir() { echo "$WORK/$1/n$2-$3"; }

move_app() {
  local i seeds
  seeds=$(broadcast_of 1 1):$STORAGE_PORT
  for i in 1 2 3; do
    event "bootstrap taiwan n$i"
    start_node "app-n$i-taiwan" "$(node_dir app "$i" taiwan)" "$(listen_of 2 "$i")" "$(broadcast_of 2 "$i")" taiwan "$seeds"
  done
  for i in 1 2 3; do
    event "decommission virginia n$i"
    nodetool "app-n$i-virginia" decommission >>"$OUT/logs/app-decommission.log" 2>&1 ||
      die "decommissioning n$i failed (see logs/app-decommission.log)"
    stop_node "app-n$i-virginia" || die "node app-n$i-virginia did not stop"
    NODE_AT[$i]=app-n$i-taiwan
  done
}

# --- Heliotrope's way ---

declare -A MNT=() IMAGE_STATE=()   # node number -> its image's mount and ext4-image.sh state directory
EXT4_IMAGE=$REPO/benchmarks/geo/ext4-image.sh

# start_helio: helio up (virginia, taiwan, the WAN between them) on free ports, and an image per node homed at virginia.
start_helio() {
  local i
  export XDG_CONFIG_HOME=$WORK/config   # helio up writes its client configuration here, not to ~/.config
  set_up_ports "$PORT_OFFSET"
  export HELIO_CONTROLLER=$CONTROLLER
  remove_tree "$WORK/helio" "$XDG_CONFIG_HOME" && mkdir -p "$XDG_CONFIG_HOME"
  log "building the distribution (./mvnw -o -pl cli -am package; logs/build.log)"
  (cd "$REPO" && ./mvnw -B -q -o -pl cli -am package -DskipTests) >>"$OUT/logs/build.log" 2>&1 ||
    die "building the distribution failed (see $OUT/logs/build.log)"
  helio_up heliotrope-up "$WORK/helio" "$RTT" "$BANDWIDTH" --demo-size 16M || die "helio up did not start"
  for i in 1 2 3; do helio image create "cass$i" --size "$IMAGE_SIZE" --home virginia >>"$OUT/logs/heliotrope-images.log"; done
}

# attach NODE SITE_INDEX [mkfs]: the node's image opened at that site and mounted at node_dir
# (geo/ext4-image.sh; its nbdfuse state in $WORK/heliotrope/image-nNODE-SITE); mkfs makes the
# file system first.
attach() {
  local i=$1 site=${SITES[$2 - 1]} port=$NBD_V
  (($2 == 1)) || port=$NBD_T
  MNT[$i]=$(node_dir heliotrope "$i" "$site") IMAGE_STATE[$i]=$WORK/heliotrope/image-n$i-$site
  "$EXT4_IMAGE" attach "${IMAGE_STATE[$i]}" "${MNT[$i]}" "nbd://127.0.0.1:$port/cass$i" ${3:+"$3"} >>"$OUT/logs/heliotrope-images.log" 2>&1 ||
    die "attaching cass$i at $site failed (see logs/heliotrope-images.log)"
}

# detach NODE: unmounted, the loop device detached and nbdfuse gone: the image closes at its site.
detach() {
  local i=$1
  [[ -n ${MNT[$i]:-} ]] || return 0
  "$EXT4_IMAGE" detach "${IMAGE_STATE[$i]}" "${MNT[$i]}" >>"$OUT/logs/heliotrope-images.log" 2>&1 ||
    die "detaching cass$i failed (see logs/heliotrope-images.log)"
  unset "MNT[$i]" "IMAGE_STATE[$i]"
}

# move_heliotrope: each node in turn drained, stopped, its image closed at virginia and
# opened at taiwan, started there with taiwan's address and DC; the next one once the
# others see it UP.
move_heliotrope() {
  local i j seeds observer
  for i in 1 2 3; do
    inspect "$(listen_of 1 "$i")" "$WORK/heliotrope/tokens-scratch.csv"   # its streams, before a restart forgets them
    event "drain n$i"
    nodetool "${NODE_AT[$i]}" drain >>"$OUT/logs/heliotrope-drain.log" 2>&1 || die "drain of n$i failed"
    stop_node "${NODE_AT[$i]}" || die "node ${NODE_AT[$i]} did not stop"
    event "detach n$i at virginia"
    detach "$i"
    wait_closed "cass$i" 60 || die "cass$i is still open at virginia"
    event "attach n$i at taiwan"
    attach "$i" 2
    seeds=() observer=''
    for j in 1 2 3; do
      ((j == i)) && continue
      observer=${NODE_AT[$j]}
      seeds+=("$(broadcast_of "$([[ $observer == *taiwan ]] && echo 2 || echo 1)" "$j"):$STORAGE_PORT")
    done
    start_node "heliotrope-n$i-taiwan" "${MNT[$i]}" "$(listen_of 2 "$i")" "$(broadcast_of 2 "$i")" taiwan \
      "$(IFS=,; echo "${seeds[*]}")" -Dcassandra.ignore_dc=true
    NODE_AT[$i]=heliotrope-n$i-taiwan
    await_up "$observer" 2 "$i"
    event "n$i up at taiwan"
  done
}

# stop_way: every process of this way stopped, the images detached (nodes before their mounts).
stop_way() {
  local i name
  for ((i = ${#LAUNCHED[@]} - 1; i >= 0; i--)); do
    name=${LAUNCHED[i]}
    case $name in
      *-wan|heliotrope-up) ;;
      "${WAY_NOW:-}"-n[1-3]-*) stop_node "$name" || true ;;
      *) stop "$name" ;;
    esac
  done
  for i in "${!MNT[@]}"; do detach "$i"; done
  stop_all
  NODE_AT=()
}

cleanup_cassandra() {
  set +e
  stop_way
  dockerd_down
}
