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
    "$REPO/benchmarks/docker/dockerd.sh" status >/dev/null 2>&1 || { "$REPO/benchmarks/docker/dockerd.sh" start >&2 && STARTED_DOCKERD=1; }
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
  local name=$1 conf
  conf=$(node_conf "$@")
  shift 6
  [[ -n ${JMX[$name]:-} ]] || JMX[$name]=$(free_port)
  local opts=(@"$HERE/jvm17.options" -Xms"$HEAP" -Xmx"$HEAP" -XX:MaxDirectMemorySize=256m
    -Dcassandra.config="file://$conf/cassandra.yaml" -Dcassandra-rackdc.properties="file://$conf/cassandra-rackdc.properties"
    -Dlogback.configurationFile="$HERE/logback.xml" -Dcassandra.logdir="$OUT/logs" -Dcassandra.storagedir="$conf"
    -Dcassandra.jmx.local.port="${JMX[$name]}" -Dcassandra.ring_delay_ms="$RING_DELAY_MS" "$@")
  if ((DOCKER)); then
    # The same server and options in a container on the host's network (benchmarks/docker):
    # the work directory (configuration, data, the images' mounts), this one and the logs bound in.
    launch "$name" "$REPO/benchmarks/docker/container.sh" run --image heliotrope/cassandra:5.0.9 --name "cassandra-$name-$$" \
      --bind "$WORK" --bind "$HERE" --bind "$OUT/logs" --env "JVM_OPTS=${opts[*]}" --wait-log "Startup complete" \
      --timeout "${NODE_TIMEOUT}s"
  else
    launch "$name" java "${opts[@]}" -cp "$CASSANDRA_CP" org.apache.cassandra.service.CassandraDaemon
  fi
  wait_for_line "$name" "Startup complete" "$NODE_TIMEOUT" || die "node $name did not start"
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

# inspect CONTACT TOKENS: the token map into TOKENS, every node's streamed bytes appended to streams.csv.
inspect() {
  client_cmd inspect 1 "$1"
  "${CMD[@]}" --tokens "$2" --streams "$DIR/streams.csv" >>"$OUT/logs/$WAY_NOW-inspect.log" 2>&1 ||
    die "reading the cluster's state failed (see $OUT/logs/$WAY_NOW-inspect.log)"
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
  rm -rf "${WORK:?}/$1" && mkdir -p "$DIR" "$WORK/$1"
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
  [[ $1 == heliotrope ]] && peer_bytes >"$DIR/peer-before.txt"
  "move_$1"
  [[ $1 == heliotrope ]] && peer_bytes >"$DIR/peer-after.txt"
  event move-end
  sleep "$AFTER"
  event end
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
    stop "app-n$i-virginia"
    NODE_AT[$i]=app-n$i-taiwan
  done
}

# --- Heliotrope's way ---

declare -A MNT=() LOOP=() FUSE=() FUSE_NAME=()   # node number -> its image's mount, loop device, nbdfuse dir and process

# start_helio: helio up (virginia, taiwan, the WAN between them) on free ports, and an image per node homed at virginia.
start_helio() {
  local status=$((7480 + PORT_OFFSET)) migration=$((7420 + PORT_OFFSET)) i
  export XDG_CONFIG_HOME=$WORK/config   # helio up writes its client configuration here, not to ~/.config
  set_up_ports "$PORT_OFFSET"
  export HELIO_CONTROLLER=$CONTROLLER
  rm -rf "$WORK/helio" "$XDG_CONFIG_HOME" && mkdir -p "$XDG_CONFIG_HOME"
  log "building the distribution (./mvnw -o -pl cli -am package; logs/build.log)"
  (cd "$REPO" && ./mvnw -B -q -o -pl cli -am package -DskipTests) >>"$OUT/logs/build.log" 2>&1 ||
    die "building the distribution failed (see $OUT/logs/build.log)"
  require_ports "$CONTROLLER_PORT" "$GRPC_V" "$GRPC_T" "$METRICS_V" "$METRICS_T" "$NBD_V" "$NBD_T" "$status" \
    $(seq "$migration" $((migration + 7)))
  launch heliotrope-up "$HELIO" up --data-dir "$WORK/helio" --wan-rtt "$RTT" --wan-bandwidth "$BANDWIDTH" --demo-size 16M \
    --controller-port "$CONTROLLER_PORT" --status-port "$status" --grpc-port "$GRPC_V" --metrics-port "$METRICS_V" \
    --nbd-port "$NBD_V" --migration-port "$migration"
  wait_for_line heliotrope-up "Press Ctrl-C to stop." 180 || die "helio up did not start"
  for i in 1 2 3; do helio image create "cass$i" --size "$IMAGE_SIZE" --home virginia >>"$OUT/logs/heliotrope-images.log"; done
}

# peer_bytes: "FORWARD BACKWARD": the storage bytes between the sites so far, virginia to taiwan
# and back; of each direction the larger of the two sites' counts (each counts the calls it
# makes and the ones it serves).
peer_bytes() {
  local v=http://127.0.0.1:$METRICS_V/metrics t=http://127.0.0.1:$METRICS_T/metrics a b
  a=$(metric "$v" heliotrope_peer_bytes_total 'direction="sent",peer="taiwan"')
  b=$(metric "$t" heliotrope_peer_bytes_total 'direction="received",peer="virginia"')
  printf '%s ' $((a > b ? a : b))
  a=$(metric "$t" heliotrope_peer_bytes_total 'direction="sent",peer="virginia"')
  b=$(metric "$v" heliotrope_peer_bytes_total 'direction="received",peer="taiwan"')
  echo $((a > b ? a : b))
}

# attach NODE SITE_INDEX [mkfs]: the node's image opened at that site (nbdfuse of the site's
# export, a loop device) and mounted at node_dir; mkfs makes the file system first.
attach() {
  local i=$1 site=${SITES[$2 - 1]} port=$NBD_V deadline=$((SECONDS + 30))
  (($2 == 1)) || port=$NBD_T
  MNT[$i]=$(node_dir heliotrope "$i" "$site") FUSE[$i]=$WORK/heliotrope/fuse-n$i-$site FUSE_NAME[$i]=heliotrope-nbdfuse-n$i-$site
  mkdir -p "${MNT[$i]}" "${FUSE[$i]}"
  launch "${FUSE_NAME[$i]}" nbdfuse -P "${FUSE[$i]}.pid" "${FUSE[$i]}/disk" "nbd://127.0.0.1:$port/cass$i"
  until [[ -s ${FUSE[$i]}.pid ]]; do
    alive "${PID[${FUSE_NAME[$i]}]}" && ((SECONDS < deadline)) || die "nbdfuse of cass$i at $site did not start"
    sleep 0.1
  done
  LOOP[$i]=$(losetup --direct-io=on --find --show "${FUSE[$i]}/disk")
  # Lazy inode tables and journal: the image reads as zeros, and nothing but what ext4 uses is written.
  [[ ${3:-} == mkfs ]] && mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1,nodiscard "${LOOP[$i]}"
  mount -o noinit_itable "${LOOP[$i]}" "${MNT[$i]}"
}

is_mounted() { awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo; }

# detach NODE: unmounted, the loop device detached and nbdfuse gone: the image closes at its site.
detach() {
  local i=$1 n
  [[ -n ${MNT[$i]:-} ]] || return 0
  is_mounted "${MNT[$i]}" && umount "${MNT[$i]}"
  losetup -d "${LOOP[$i]}"
  for ((n = 0; n < 50; n++)); do   # the loop device may hold the file a moment longer
    is_mounted "${FUSE[$i]}" || break
    fusermount3 -u "${FUSE[$i]}" 2>/dev/null && break
    sleep 0.2
  done
  for ((n = 0; n < 100; n++)); do alive "${PID[${FUSE_NAME[$i]}]:-}" || break; sleep 0.1; done
  stop "${FUSE_NAME[$i]}"
  unset "MNT[$i]" "LOOP[$i]" "FUSE[$i]" "FUSE_NAME[$i]"
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
    stop "${NODE_AT[$i]}"
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
    [[ $name == *-nbdfuse-* || $name == *-wan || $name == heliotrope-up ]] || stop "$name"
  done
  for i in "${!MNT[@]}"; do detach "$i"; done
  stop_all
  NODE_AT=()
}

cleanup_cassandra() {
  set +e
  stop_way
  ((STARTED_DOCKERD)) && "$REPO/benchmarks/docker/dockerd.sh" stop >&2
}
