#!/usr/bin/env bash
# One ZooKeeper server of follow.sh as a plain process with its data on a Heliotrope image;
# FollowTheSun (its ColdMover) calls this for each step of a cold move. Not meant to be run
# by hand, but it can be:
#   node.sh attach DIR NBD_URL [mkfs]   the image mounted at DIR/data (geo/ext4-image.sh, its
#                                state in DIR); mkfs makes the file system first (only for a
#                                new image: startAll), and DIR's myid is written when missing
#   node.sh start DIR CFG        QuorumPeerMain CFG in a session of its own; pid in DIR/zk.pid
#                                (with ZK_DOCKER=1 in a container of heliotrope/zookeeper, host
#                                network, DIR/data and CFG bound in, its name in DIR/container:
#                                benchmarks/docker)
#   node.sh stop DIR             TERM to that session (KILL after 15 s), the container removed
#   node.sh detach DIR           umount, loop device freed, nbdfuse unmounted (which closes the image)
# DIR's name is the server's (zk1..zk3): its myid is the number. Needs root, nbdfuse,
# fusermount3, losetup, mkfs.ext4; ZK_CLASSPATH in the environment for start.
set -euo pipefail

BENCHMARKS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=../geo/lib.sh
source "$BENCHMARKS/geo/lib.sh"
log() { printf '%s node.sh %s: %s\n' "$(date +%T.%3N)" "${DIR##*/}" "$*"; }
EXT4_IMAGE=$BENCHMARKS/geo/ext4-image.sh
CONTAINER_SH=$BENCHMARKS/docker/container.sh

attach() {
  "$EXT4_IMAGE" attach "$DIR" "$DIR/data" "$@"
  [[ -f $DIR/data/myid ]] || echo "${DIR##*/zk}" >"$DIR/data/myid"
}

detach() {
  "$EXT4_IMAGE" detach "$DIR" "$DIR/data"
}

start() {
  local cfg=$1
  [[ -n ${ZK_CLASSPATH:-} ]] || { log "ZK_CLASSPATH is not set"; return 1; }
  local opts=${ZK_JAVA_OPTS:--Xmx96m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}
  if [[ ${ZK_DOCKER:-0} == 1 ]]; then
    # "binding to port": an ensemble member prints it before the election, which the first one started never sees end.
    # Only its data and configuration bound in: a bind of DIR would hold its nbdfuse mount
    # in the container (review #24, B1).
    echo "zk-${DIR##*/}-$$" >"$DIR/container"
    setsid "$CONTAINER_SH" run --image "$(image_tag zookeeper)" --name "$(cat "$DIR/container")" \
      --bind "$DIR/data" --bind "$cfg" --env "JVM_OPTS=$opts" --wait-log "binding to port" --timeout 120s -- "$cfg" \
      </dev/null >>"$DIR/zk.log" 2>&1 &
  else
    # shellcheck disable=SC2086 # the options are a list
    setsid java $opts -cp "$ZK_CLASSPATH" org.apache.zookeeper.server.quorum.QuorumPeerMain "$cfg" </dev/null >>"$DIR/zk.log" 2>&1 &
  fi
  echo $! >"$DIR/zk.pid"
  log "started with $cfg (pid $!)"
}

# stop: TERM to the session start made (ZooKeeper's JVM, or container.sh with its launcher
# and docker logs), KILL after 15 s; then its container, if any, removed for sure: it must
# not hold the data's mount when detach runs.
stop() {
  local pid
  pid=$(cat "$DIR/zk.pid" 2>/dev/null || true)
  if [[ -n $pid ]]; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    if ! until_gone "$pid" 15; then
      log "ZooKeeper $pid ignored TERM for 15 s: killing its session"
      kill -KILL -- "-$pid" 2>/dev/null || true
      until_gone "$pid" 10 || true
    fi
    rm -f "$DIR/zk.pid"
  fi
  if [[ -s $DIR/container ]]; then
    "$CONTAINER_SH" gone "$(cat "$DIR/container")"
    rm -f "$DIR/container"
  fi
  log "stopped"
}

(($# >= 2)) || { echo "usage: node.sh attach|start|stop|detach DIR [NBD_URL [mkfs]|CFG]" >&2; exit 1; }
ACTION=$1 DIR=$2
shift 2
case $ACTION in
  attach|start|stop|detach) "$ACTION" "$@" ;;
  *) echo "node.sh: unknown action $ACTION" >&2; exit 1 ;;
esac
