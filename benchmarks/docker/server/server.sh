#!/bin/sh
# The entrypoint of the server images: the same java command line a benchmark runs as a
# plain process, with the image's class path. JVM_OPTS is split on blanks (a benchmark passes
# its options there; their paths are bind-mounted at the same place); the arguments go to
# MAIN_CLASS (ZooKeeper: its zoo.cfg). exec: java is pid 1 and gets docker stop's TERM.
# shellcheck disable=SC2086
exec java $JVM_OPTS -cp '/opt/heliotrope/lib/*' "$MAIN_CLASS" "$@"
