#!/usr/bin/env bash
# Builds the DBENCH guest of issue #24 part 1. Run with --help.
set -euo pipefail

usage() {
    cat <<USAGE
usage: $0 OUTDIR

Builds the DBENCH guest (QEMU TCG, Debian kernel, root disk = raw ext4 image):
  OUTDIR/base/             it-tests/src/test/guest/build-guest.sh's output
  OUTDIR/vmlinuz           -> base/vmlinuz (Debian's kernel)
  OUTDIR/initrd.img        -> base/initrd.img (mounts /dev/vda ext4 rw, switch_root)
  OUTDIR/root.img          raw ext4, \$ROOT_MB MiB: Debian bookworm minbase + dbench,
                           /sbin/init = this directory's init (the workload)
  OUTDIR/.stamp            a re-run with a matching stamp does nothing

root.img is the pristine image: boot a copy (the guest writes to it).

Environment:
  ROOT_MB   size of root.img in MiB [1024]
  CACHE     where the debootstrap tree is kept between builds [/var/tmp/dguest-cache]
  MIRROR    Debian mirror [http://deb.debian.org/debian]
USAGE
}
case ${1:-} in -h|--help) usage; exit 0 ;; esac
if [ $# -ne 1 ]; then usage >&2; exit 2; fi

OUT=$1
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
ROOT_MB=${ROOT_MB:-1024}
CACHE=${CACHE:-/var/tmp/dguest-cache}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
export PATH="$PATH:/sbin:/usr/sbin"

log() { echo "dbench-guest: $*" >&2; }

# ---------------------------------------------------------------- kernel + initramfs
"$REPO/it-tests/src/test/guest/build-guest.sh" "$OUT/base"
ln -sfn base/vmlinuz "$OUT/vmlinuz"
ln -sfn base/initrd.img "$OUT/initrd.img"

# ---------------------------------------------------------------- stamp check
tree_id="suite=$SUITE variant=minbase include=dbench mirror=$MIRROR"
stamp_value() {
    echo "$(cat "$HERE/build.sh" "$HERE/init" "$OUT/base/.stamp" | sha256sum | cut -d' ' -f1) rootmb=$ROOT_MB $tree_id"
}
if [ -f "$OUT/root.img" ] && [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$(stamp_value)" ]; then
    log "up to date: $OUT"
    exit 0
fi
rm -f "$OUT/.stamp"

if [ "$(id -u)" -ne 0 ]; then
    log "debootstrap needs root"
    exit 1
fi
"$REPO/bin/install-packages" debootstrap e2fsprogs

# ---------------------------------------------------------------- Debian tree (cached)
# debootstrap once into $CACHE/tree (about 2 minutes), trimmed; later builds copy it.
TREE=$CACHE/tree
if [ ! -f "$TREE.id" ] || [ "$(cat "$TREE.id")" != "$tree_id" ]; then
    mkdir -p "$CACHE"
    rm -rf "$TREE" "$TREE.id" "$TREE.tmp"
    log "debootstrap $SUITE from $MIRROR into $TREE"
    debootstrap --variant=minbase --include=dbench "$SUITE" "$TREE.tmp" "$MIRROR" >&2
    # Trim what a benchmark guest never reads: apt's lists and archives, docs, man
    # pages, locales, logs.
    rm -rf "$TREE.tmp"/var/lib/apt/lists/* "$TREE.tmp"/var/cache/apt/* \
        "$TREE.tmp"/var/cache/debconf/*-old "$TREE.tmp"/var/log/* \
        "$TREE.tmp"/usr/share/doc/* "$TREE.tmp"/usr/share/man/* "$TREE.tmp"/usr/share/info/* \
        "$TREE.tmp"/usr/share/locale/* "$TREE.tmp"/usr/share/i18n/* "$TREE.tmp"/usr/share/zoneinfo/*
    [ -r "$TREE.tmp/usr/share/dbench/client.txt" ] || { log "no dbench load file in the tree"; exit 1; }
    mv "$TREE.tmp" "$TREE"
    echo "$tree_id" > "$TREE.id"
fi

# ---------------------------------------------------------------- root.img
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/dguest-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
R=$WORK/rootfs
cp -a "$TREE" "$R"
rm -f "$R/sbin/init"
install -m 755 "$HERE/init" "$R/sbin/init"
echo "helio-dbench" > "$R/etc/hostname"

truncate -s "${ROOT_MB}M" "$WORK/root.img"
# No lazy init: the kernel would otherwise zero inode tables and the journal in the
# background after the first mount, I/O that is not dbench's.
mkfs.ext4 -q -F -L helio-dbench -E lazy_itable_init=0,lazy_journal_init=0,root_owner=0:0 \
    -d "$R" "$WORK/root.img"

mv "$WORK/root.img" "$OUT/root.img"
stamp_value > "$OUT/.stamp"
log "built $OUT: root.img ($ROOT_MB MiB, $(du -sm "$R" | cut -f1) MiB of files)"
