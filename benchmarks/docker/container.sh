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
  gone NAME                  removes container NAME if it is still there (stop --grace 5s);
                             fails when it is there after that
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
# TERM/INT, which stop and remove it (exit 143 or 130). The trap is set before the start: a
# TERM during it ends the launcher, and then the container is removed by its name. The
# container gets 5 s after its TERM: geo/lib.sh's stop KILLs our group 15 s after its TERM,
# and the launcher's JVM start and the removal must fit in that too.
stopped() {
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" || true
  rm -f "$idfile"
  "${LAUNCHER[@]}" stop --grace 5s "$name"
  exit "$1"
}

run() {
  local code i
  name='' idfile='' pid=
  for ((i = 1; i < $#; i++)); do
    [[ ${!i} == --name ]] && { i=$((i + 1)); name=${!i}; }
  done
  [[ -n $name ]] || { echo "container.sh: --name is required" >&2; exit 1; }
  idfile=$(mktemp)
  "${LAUNCHER[@]}" start "$@" >"$idfile" &
  pid=$!
  trap 'stopped 143' TERM
  trap 'stopped 130' INT
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

# gone NAME: container NAME removed, if it was there; fails when it is still there.
gone() {
  docker inspect "$1" >/dev/null 2>&1 || return 0
  "${LAUNCHER[@]}" stop --grace 5s "$1" >&2 || true
  if docker inspect "$1" >/dev/null 2>&1; then
    echo "container.sh: container $1 is still there after docker stop and rm" >&2
    exit 1
  fi
}

case ${1:-} in
  run) shift; run "$@" ;;
  gone) gone "${2:?container.sh gone NAME}" ;;
  *) exec "${LAUNCHER[@]}" "$@" ;;
esac
