#!/usr/bin/env bash
# A Docker daemon of our own for the benchmarks' containers (issue #24 part 4, DESIGN.md
# section 10): no bridge, no iptables, its own socket, data root and pidfile. Run with --help.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROOT=${HELIO_DOCKER_ROOT:-/var/tmp/heliotrope-docker}
SOCKET=${HELIO_DOCKER_SOCKET:-/var/run/heliotrope-docker.sock}
PIDFILE=$ROOT/dockerd.pid
START_TIMEOUT=60

usage() {
  cat <<EOF2
Usage: benchmarks/docker/dockerd.sh start|stop|status|env

A Docker daemon for the benchmarks' servers in containers, apart from any daemon of the
host's: socket $SOCKET, data root $ROOT/data, state (containerd's
included) in $ROOT/exec, pidfile $PIDFILE, log $ROOT/dockerd.log,
an empty configuration file (no /etc/docker/daemon.json).

It runs as this machine allows (DESIGN.md section 10): --bridge=none --iptables=false
--ip6tables=false --ip-masq=false. No network is ever created; containers run with
--network host (benchmarks/docker/README.md).

  start    installs Debian's docker.io (bin/install-packages) when dockerd is missing,
           starts dockerd in a session of its own and waits until 'docker info' answers
           (at most ${START_TIMEOUT} s): exit 0 only when it started it; exit 4, doing
           nothing, when it already runs (another run's: leave it to that run to stop)
  stop     TERM to its pid (dockerd stops its containers), KILL after 30 s; refuses (exit
           5) while a container of benchmarks/docker's launcher runs on it, unless --force
  status   pid, versions, storage driver, containers; exit 3 when it does not run
  env      the DOCKER_HOST line for a shell: eval "\$(benchmarks/docker/dockerd.sh env)"
  -h, --help   this text

Environment: HELIO_DOCKER_ROOT [$ROOT], HELIO_DOCKER_SOCKET [$SOCKET].
Needs root.
EOF2
}

# shellcheck source=../geo/lib.sh
source "$REPO/benchmarks/geo/lib.sh"
export DOCKER_HOST=unix://$SOCKET

# daemon_pid: the pid of the pidfile, if that process runs and is a dockerd (not a pid reused since).
daemon_pid() {
  local pid
  pid=$(cat "$PIDFILE" 2>/dev/null || true)
  [[ $pid =~ ^[0-9]+$ && $(cat "/proc/$pid/comm" 2>/dev/null) == dockerd ]] && echo "$pid"
}

answers() { docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; }

start() {
  local pid deadline=$((SECONDS + START_TIMEOUT))
  if pid=$(daemon_pid); then
    log "dockerd already runs (pid $pid, $DOCKER_HOST): not ours to stop"
    return 4
  fi
  command -v dockerd >/dev/null || "$REPO/bin/install-packages" docker.io
  ((EUID == 0)) || die "dockerd needs root"
  mkdir -p "$ROOT/data" "$ROOT/exec"
  [[ -f $ROOT/daemon.json ]] || echo '{}' >"$ROOT/daemon.json"
  rm -f "$PIDFILE"
  setsid dockerd --host "$DOCKER_HOST" --pidfile "$PIDFILE" --config-file "$ROOT/daemon.json" \
    --data-root "$ROOT/data" --exec-root "$ROOT/exec" \
    --bridge=none --iptables=false --ip6tables=false --ip-masq=false \
    </dev/null >>"$ROOT/dockerd.log" 2>&1 &
  pid=$!
  until answers; do
    alive "$pid" || die "dockerd exited at start (see $ROOT/dockerd.log)"
    ((SECONDS < deadline)) || { kill -TERM "$pid"; die "dockerd did not answer in $START_TIMEOUT s (see $ROOT/dockerd.log)"; }
    sleep 0.2
  done
  log "dockerd runs (pid $pid, $DOCKER_HOST, server $(docker info --format '{{.ServerVersion}}'), storage $(docker info --format '{{.Driver}}'))"
}

stop() {
  local pid i running
  pid=$(daemon_pid) || { log "dockerd does not run"; return 0; }
  if [[ ${1:-} != --force ]]; then
    running=$(docker ps -q --filter label=io.heliotrope.launcher 2>/dev/null | wc -l)
    ((running == 0)) || { log "not stopping dockerd: $running container(s) of the launcher run on it (another run's?); --force to stop anyway"; return 5; }
  fi
  kill -TERM "$pid"
  for ((i = 0; i < 150; i++)); do alive "$pid" || break; sleep 0.2; done
  if alive "$pid"; then
    log "dockerd ($pid) ignored TERM for 30 s; killing it"
    kill -KILL "$pid"
  fi
  rm -f "$PIDFILE"
  log "dockerd ($pid) stopped"
}

status() {
  local pid
  pid=$(daemon_pid) || { echo "dockerd: not running ($PIDFILE)"; return 3; }
  echo "dockerd: pid $pid, $DOCKER_HOST"
  docker version --format 'client {{.Client.Version}} (API {{.Client.APIVersion}}), server {{.Server.Version}} (API {{.Server.APIVersion}})'
  docker info --format 'storage {{.Driver}}, data root {{.DockerRootDir}}, {{.Containers}} containers ({{.ContainersRunning}} running), {{.Images}} images'
  docker ps --format '{{.ID}} {{.Image}} {{.Names}} {{.Status}}'
}

case ${1:-} in
  -h|--help) usage ;;
  start|status) "$1" ;;
  stop) stop "${2:-}" ;;
  env) echo "export DOCKER_HOST=$DOCKER_HOST" ;;
  *) usage >&2; exit 1 ;;
esac
