#!/usr/bin/env bash
# One ZooKeeper server of follow.sh as a plain process with its data on a Heliotrope image;
# FollowTheSun (its ColdMover) calls this for each step of a cold move. Not meant to be run
# by hand, but it can be:
#   node.sh attach DIR NBD_URL   the image as DIR/fuse/disk (nbdfuse), a loop device over it,
#                                ext4 mounted at DIR/data (made, with DIR's myid, when the image has none)
#   node.sh start DIR CFG        QuorumPeerMain CFG in a session of its own; pid in DIR/zk.pid
#                                (with ZK_DOCKER=1 in a container of heliotrope/zookeeper, host
#                                network, DIR bound in: benchmarks/docker)
#   node.sh stop DIR             TERM to that pid (KILL after 15 s)
#   node.sh detach DIR           umount, loop device freed, nbdfuse unmounted (which closes the image)
# DIR's name is the server's (zk1..zk3): its myid is the number. Needs root, nbdfuse,
# fusermount3, losetup, mkfs.ext4; ZK_CLASSPATH in the environment for start.
set -euo pipefail

log() { printf '%s node.sh %s: %s\n' "$(date +%T.%3N)" "${DIR##*/}" "$*"; }
alive() { [[ -n $1 ]] && ps -o stat= -p "$1" 2>/dev/null | grep -qv Z; }
is_mounted() { awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo; }

# until_gone PID SECONDS: true once the process has exited.
until_gone() {
  local deadline=$((SECONDS + $2))
  while alive "$1"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.1
  done
}

attach() {
  local url=$1 pid loop deadline=$((SECONDS + 60))
  mkdir -p "$DIR/fuse" "$DIR/data"
  rm -f "$DIR/nbdfuse.pid"
  setsid nbdfuse -P "$DIR/nbdfuse.pid" "$DIR/fuse/disk" "$url" </dev/null >>"$DIR/nbdfuse.log" 2>&1 &
  until [[ -s $DIR/nbdfuse.pid ]]; do
    ((SECONDS < deadline)) || { tail -n 5 "$DIR/nbdfuse.log"; log "nbdfuse did not start"; return 1; }
    sleep 0.05
  done
  loop=$(losetup --direct-io=on --find --show "$DIR/fuse/disk")
  echo "$loop" >"$DIR/loop"
  if ! blkid -p "$loop" >/dev/null 2>&1; then
    log "no file system on the image yet: mkfs.ext4"
    mkfs.ext4 -q -F "$loop"
  fi
  mount "$loop" "$DIR/data"
  [[ -f $DIR/data/myid ]] || echo "${DIR##*/zk}" >"$DIR/data/myid"
  log "attached $url at $loop"
}

detach() {
  local pid
  if is_mounted "$DIR/data"; then
    umount "$DIR/data"
  fi
  if [[ -s $DIR/loop ]]; then
    losetup -d "$(cat "$DIR/loop")" 2>/dev/null || true
    rm -f "$DIR/loop"
  fi
  pid=$(cat "$DIR/nbdfuse.pid" 2>/dev/null || true)
  if is_mounted "$DIR/fuse"; then
    fusermount3 -u "$DIR/fuse"
  fi
  if [[ -n $pid ]] && ! until_gone "$pid" 30; then
    log "nbdfuse $pid still runs 30 s after its unmount: killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$DIR/nbdfuse.pid"
  log "detached"
}

start() {
  local cfg=$1
  [[ -n ${ZK_CLASSPATH:-} ]] || { log "ZK_CLASSPATH is not set"; return 1; }
  local opts=${ZK_JAVA_OPTS:--Xmx96m -XX:+UseSerialGC -XX:TieredStopAtLevel=1}
  if [[ ${ZK_DOCKER:-0} == 1 ]]; then
    # "binding to port": an ensemble member prints it before the election, which the first one started never sees end.
    setsid "$(dirname "$0")/../docker/container.sh" run --image heliotrope/zookeeper:3.9.5 --name "zk-${DIR##*/}-$$" \
      --bind "$DIR" --env "JVM_OPTS=$opts" --wait-log "binding to port" --timeout 120s -- "$cfg" </dev/null >>"$DIR/zk.log" 2>&1 &
  else
    # shellcheck disable=SC2086 # the options are a list
    setsid java $opts -cp "$ZK_CLASSPATH" org.apache.zookeeper.server.quorum.QuorumPeerMain "$cfg" </dev/null >>"$DIR/zk.log" 2>&1 &
  fi
  echo $! >"$DIR/zk.pid"
  log "started with $cfg (pid $!)"
}

stop() {
  local pid
  pid=$(cat "$DIR/zk.pid" 2>/dev/null || true)
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  if ! until_gone "$pid" 15; then
    log "ZooKeeper $pid ignored TERM for 15 s: killing it"
    kill -KILL "$pid" 2>/dev/null || true
    until_gone "$pid" 10 || true
  fi
  rm -f "$DIR/zk.pid"
  log "stopped"
}

(($# >= 2)) || { echo "usage: node.sh attach|start|stop|detach DIR [NBD_URL|CFG]" >&2; exit 1; }
ACTION=$1 DIR=$2
shift 2
case $ACTION in
  attach|start|stop|detach) "$ACTION" "$@" ;;
  *) echo "node.sh: unknown action $ACTION" >&2; exit 1 ;;
esac
