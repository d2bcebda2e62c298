#!/usr/bin/env bash
# Builds the benchmarks' container images locally, nothing pulled (issue #24 part 4). Run with --help.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${CACHE:-/var/tmp/docker-base-cache}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
CASSANDRA_POM=${CASSANDRA_POM:-$REPO/benchmarks/cassandra/pom.xml}
SUITE=bookworm
PACKAGES=openjdk-17-jre-headless,procps,netbase
BASE=heliotrope/base:$SUITE

usage() {
  cat <<EOF2
Usage: benchmarks/docker/build-images.sh

Builds, on the daemon of benchmarks/docker/dockerd.sh (started for the build and stopped
after it when it did not run), with nothing pulled from a registry:

  $BASE     debootstrap --variant=minbase --include=$PACKAGES
                               $SUITE, trimmed, then 'docker import' (the tree is kept in
                               \$CACHE/tree between builds)
  heliotrope/zookeeper:V       the base + ZooKeeper's server class path
                               (benchmarks/docker/zookeeper/pom.xml: the versions of the
                               build; V its zookeeper.version)
  heliotrope/cassandra:V       the base + Cassandra's class path (\$CASSANDRA_POM:
                               benchmarks/cassandra/pom.xml, what move.sh runs; V its version)

Both run server/Dockerfile: /opt/heliotrope/bin/server runs
'java \$JVM_OPTS -cp /opt/heliotrope/lib/* \$MAIN_CLASS ARGS...' (README.md). An image whose
inputs (the tree, the jars' contents, the Dockerfile, the entrypoint) have not changed is not rebuilt:
a second run takes seconds. The jars come from ~/.m2 (Maven offline, online once when
missing).

Environment:
  CACHE          where the debootstrap tree is kept [$CACHE]
  MIRROR         Debian mirror [$MIRROR]
  CASSANDRA_POM  the pom of Cassandra's class path [$CASSANDRA_POM]
Needs root (debootstrap, dockerd).
EOF2
}
case ${1:-} in
  -h|--help) usage; exit 0 ;;
  "") ;;
  *) usage >&2; exit 1 ;;
esac

# shellcheck source=../geo/lib.sh
source "$REPO/benchmarks/geo/lib.sh"
((EUID == 0)) || die "needs root (debootstrap, dockerd)"
[[ -f $CASSANDRA_POM ]] || die "no $CASSANDRA_POM (set CASSANDRA_POM)"
eval "$("$HERE/dockerd.sh" env)"
WORK=$(mktemp -d /var/tmp/heliotrope-images.XXXXXX)
cleanup() {
  rm -rf "$WORK"
  dockerd_down
}
trap cleanup EXIT
trap 'exit 130' INT TERM
dockerd_up

# label IMAGE: the io.heliotrope.inputs label of IMAGE, empty when it does not exist.
label() { docker image inspect --format '{{index .Config.Labels "io.heliotrope.inputs"}}' "$1" 2>/dev/null || true; }

# base_tree: debootstrap once into $CACHE/tree, trimmed of what a server never reads.
base_tree() {
  local tree=$CACHE/tree id="suite=$SUITE variant=minbase include=$PACKAGES mirror=$MIRROR"
  [[ -f $tree.id && $(cat "$tree.id") == "$id" ]] && return 0
  "$REPO/bin/install-packages" debootstrap
  mkdir -p "$CACHE"
  rm -rf "$tree" "$tree.id" "$tree.tmp"
  log "debootstrap $SUITE ($PACKAGES) from $MIRROR into $tree"
  debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$tree.tmp" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 ||
    die "debootstrap failed (see $CACHE/debootstrap.log)"
  rm -rf "$tree.tmp"/var/lib/apt/lists/* "$tree.tmp"/var/cache/apt/* "$tree.tmp"/var/log/* \
    "$tree.tmp"/usr/share/doc/* "$tree.tmp"/usr/share/man/* "$tree.tmp"/usr/share/info/* \
    "$tree.tmp"/usr/share/locale/*
  mv "$tree.tmp" "$tree"
  echo "$id" >"$tree.id"
}

base_image() {
  local inputs
  base_tree
  inputs=$(sha256sum <"$CACHE/tree.id" | cut -c1-16)
  if [[ $(label "$BASE") == "$inputs" ]]; then
    log "$BASE is up to date"
    return 0
  fi
  log "docker import $CACHE/tree as $BASE"
  tar -C "$CACHE/tree" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' --change "LABEL io.heliotrope.inputs=$inputs" - "$BASE" >/dev/null
}

# server_image IMAGE POM MAIN_CLASS: IMAGE from server/Dockerfile with POM's runtime class path.
server_image() {
  local image=$1 pom=$2 main=$3 ctx=$WORK/${1//[\/:]/-} inputs
  mkdir -p "$ctx/lib"
  (cd "$REPO" && { ./mvnw -B -q -o -f "$pom" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$ctx/lib" ||
    ./mvnw -B -q -f "$pom" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$ctx/lib"; }) \
    >>"$WORK/maven.log" 2>&1 || { cat "$WORK/maven.log" >&2; die "resolving $pom failed"; }
  cp "$HERE/server/Dockerfile" "$HERE/server/server.sh" "$ctx/"
  inputs=$( { label "$BASE"; echo "$main"; (cd "$ctx" && sha256sum lib/* Dockerfile server.sh); } | sha256sum | cut -c1-16)
  if [[ $(label "$image") == "$inputs" ]]; then
    log "$image is up to date"
    return 0
  fi
  log "building $image ($(find "$ctx/lib" -name '*.jar' | wc -l) jars, $(du -sm "$ctx/lib" | cut -f1) MB)"
  docker build -q --network none --build-arg BASE="$BASE" --build-arg MAIN_CLASS="$main" \
    --label io.heliotrope.inputs="$inputs" -t "$image" "$ctx" >"$WORK/build.log" 2>&1 ||
    { cat "$WORK/build.log" >&2; die "building $image failed"; }
}

base_image
server_image "$(image_tag zookeeper)" "$HERE/zookeeper/pom.xml" org.apache.zookeeper.server.quorum.QuorumPeerMain
server_image "$(image_tag cassandra)" "$CASSANDRA_POM" org.apache.cassandra.service.CassandraDaemon
docker image ls --filter reference='heliotrope/*' --format '{{.Repository}}:{{.Tag}} {{.Size}}'
