#!/usr/bin/env bash
# A Heliotrope image as an ext4 file system on this host, for the benchmarks whose servers
# keep their data on an image (cassandra/move.sh, sun/node.sh): nbdfuse of the site's NBD
# export, a loop device over its file, ext4 mounted.
#
#   ext4-image.sh attach STATE MOUNT NBD_URL [mkfs]
#       nbdfuse serves the export as STATE/fuse/disk (pid STATE/nbdfuse.pid, log
#       STATE/nbdfuse.log), a loop device over it (direct I/O), ext4 mounted at MOUNT; with
#       mkfs, the file system is made first (lazy inode tables and journal: the image reads
#       as zeros, and nothing but what ext4 uses is written). Without mkfs a missing or
#       unreadable file system is an error: an image never gets formatted by accident.
#   ext4-image.sh detach STATE MOUNT
#       MOUNT unmounted, every loop device over STATE/fuse/disk detached (found by their
#       backing file, so an attach cut short leaks none), nbdfuse unmounted and gone (KILL
#       30 s after its unmount): the image closes at its site. Does nothing for what is not
#       there.
# Needs root, nbdfuse, fusermount3, losetup, mkfs.ext4.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
log() { printf '%s ext4-image.sh %s: %s\n' "$(date +%T.%3N)" "${STATE##*/}" "$*" >&2; }

attach() {
  local url=$1 mkfs=${2:-} loop deadline=$((SECONDS + 60))
  [[ -z $mkfs || $mkfs == mkfs ]] || { log "unknown argument '$mkfs' (mkfs or nothing)"; return 1; }
  mkdir -p "$STATE/fuse" "$MOUNT"
  rm -f "$STATE/nbdfuse.pid"
  setsid nbdfuse -P "$STATE/nbdfuse.pid" "$STATE/fuse/disk" "$url" </dev/null >>"$STATE/nbdfuse.log" 2>&1 &
  until [[ -s $STATE/nbdfuse.pid ]]; do
    ((SECONDS < deadline)) || { tail -n 5 "$STATE/nbdfuse.log" >&2; log "nbdfuse of $url did not start in 60 s"; return 1; }
    sleep 0.05
  done
  loop=$(losetup --direct-io=on --find --show "$STATE/fuse/disk")
  if [[ $mkfs == mkfs ]]; then
    mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1,nodiscard "$loop"
  fi
  mount -o noinit_itable "$loop" "$MOUNT" || { log "mounting $url ($loop) at $MOUNT failed"; return 1; }
  log "attached $url at $loop, mounted at $MOUNT"
}

detach() {
  local pid loop n
  if is_mounted "$MOUNT"; then
    umount "$MOUNT"
  fi
  if [[ -e $STATE/fuse/disk ]]; then
    for loop in $(losetup -n -O NAME -j "$STATE/fuse/disk"); do
      losetup -d "$loop"
    done
  fi
  pid=$(cat "$STATE/nbdfuse.pid" 2>/dev/null || true)
  # The loop device may hold the file a moment after losetup -d.
  for ((n = 0; n < 50; n++)); do
    is_mounted "$STATE/fuse" || break
    fusermount3 -u "$STATE/fuse" 2>/dev/null && break
    sleep 0.2
  done
  is_mounted "$STATE/fuse" && { log "$STATE/fuse is still mounted after 10 s (a process holds it)"; return 1; }
  if [[ -n $pid ]] && ! until_gone "$pid" 30; then
    log "nbdfuse $pid still runs 30 s after its unmount: killing it"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$STATE/nbdfuse.pid"
  log "detached"
}

(($# >= 3)) || { echo "usage: ext4-image.sh attach STATE MOUNT NBD_URL [mkfs] | detach STATE MOUNT" >&2; exit 1; }
ACTION=$1 STATE=$2 MOUNT=$3
shift 3
case $ACTION in
  attach) (($# >= 1)) || { echo "ext4-image.sh attach: NBD_URL missing" >&2; exit 1; }; attach "$@" ;;
  detach) detach ;;
  *) echo "ext4-image.sh: unknown action $ACTION (attach or detach)" >&2; exit 1 ;;
esac
