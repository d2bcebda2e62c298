#!/usr/bin/env bash
# A server in a container on the host's network, through Testcontainers (ContainerLauncher in
# benchmarks.jar), on the daemon of dockerd.sh. Run with --help; README.md has the calls.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
JAR=${BENCHMARKS_JAR:-$REPO/benchmarks/target/benchmarks.jar}

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
  cat <<EOF2
Usage: benchmarks/docker/container.sh COMMAND ...

  start --image IMG --name N [--bind HOST:CONTAINER|PATH]... [--env K=V]... --wait-log REGEX
        [--timeout 300s] [-- ARGS...]
        starts IMG (a local image, never pulled) with --network host, the binds (read-write,
        recursive; PATH alone: the same path inside) and the environment, ARGS to its
        entrypoint; prints the container's id once a line of its output matches REGEX and
        leaves it running (exit 2, and the container removed, when no line does in time)
  run   (the options of start)
        the same, then its output on stdout/stderr until it exits; TERM or INT stops and
        removes it (for a benchmark's launch ... / stop by process group)
  stop [--grace 15s] ID...   docker stop (TERM, KILL after the grace) and rm; a name works too
  logs [--follow] ID         its output (or: docker logs ID, with DOCKER_HOST below)

Environment it sets: DOCKER_HOST (dockerd.sh env), TESTCONTAINERS_RYUK_DISABLED=true,
TESTCONTAINERS_HOST_OVERRIDE=localhost. Needs dockerd.sh start, build-images.sh and
benchmarks.jar (./mvnw -o -pl benchmarks -am package -DskipTests); BENCHMARKS_JAR [$JAR].
EOF2
  exit 0
fi
[[ -f $JAR ]] || { echo "container.sh: no $JAR (./mvnw -B -q -o -pl benchmarks -am package -DskipTests)" >&2; exit 1; }
eval "$("$HERE/dockerd.sh" env)"
export TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=localhost

LAUNCHER=(java -Xmx96m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dorg.slf4j.simpleLogger.defaultLogLevel=error
  -cp "$JAR" io.heliotrope.benchmarks.containers.ContainerLauncher)

# run OPTIONS...: start, then the container's output until it exits (its exit code) or until
# TERM/INT, which stop and remove it. The trap is set before the start: a TERM during it ends
# the launcher, and then the container is removed by its name.
run() {
  local name='' idfile pid code i
  for ((i = 1; i < $#; i++)); do
    [[ ${!i} == --name ]] && { i=$((i + 1)); name=${!i}; }
  done
  [[ -n $name ]] || { echo "container.sh: --name is required" >&2; exit 1; }
  idfile=$(mktemp)
  "${LAUNCHER[@]}" start "$@" >"$idfile" &
  pid=$!
  trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" || true; rm -f "$idfile"; "${LAUNCHER[@]}" stop --grace 10s "$name"; exit 143' TERM INT
  wait "$pid" || { code=$?; rm -f "$idfile"; exit "$code"; }
  echo "container.sh: $name runs as $(cat "$idfile")" >&2
  rm -f "$idfile"
  docker logs --follow "$name" &
  pid=$!
  wait "$pid" || true
  code=$(docker wait "$name" 2>/dev/null || echo 2)
  "${LAUNCHER[@]}" stop "$name"
  echo "container.sh: $name exited with $code" >&2
  exit "$code"
}

case ${1:-} in
  run) shift; run "$@" ;;
  *) exec "${LAUNCHER[@]}" "$@" ;;
esac
