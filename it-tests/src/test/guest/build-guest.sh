#!/usr/bin/env bash
# Build the tiny QEMU test guests: the "guest boots from an NBD image and writes
# to its disk" guest, and the records guest of the migration tests.
#
#   build-guest.sh OUTDIR
#
# Produces in OUTDIR:
#   vmlinuz     Debian's distribution kernel (copied from /boot)
#   initrd.img  busybox initramfs: insmods virtio/ext4 modules, mounts /dev/vda
#               read-write and switch_roots into it
#   root.img    64 MiB raw ext4 image (mkfs.ext4 -d, no mount needed) holding a
#               busybox root whose /sbin/init is the workload: prints
#               "HELIO-GUEST: booted", writes /heliotrope-marker, syncs, prints
#               "HELIO-GUEST: wrote marker", remounts / ro and powers off.
#   records-initrd.img
#               the same initramfs with another /init: no root fs; writes
#               record n into block n of /dev/vda every ~200 ms and prints
#               "HELIO-REC n" once it is on the disk (see README.md)
#   .stamp      checksum of this script + kernel version; a re-run with a
#               matching stamp and all four files present does nothing.
#
# root.img is the pristine image: tests that boot it should work on a copy
# (the guest writes to it).
#
# Environment:
#   KVER       kernel version to use (default: newest /boot/vmlinuz-* that has
#              /lib/modules/KVER/modules.dep; never the host's running kernel)
#   ROOT_MB    size of root.img in MiB (default 64)
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: $0 OUTDIR" >&2
    exit 2
fi
OUT=$1
SELF=$(readlink -f "$0")
ROOT_MB=${ROOT_MB:-64}

log() { echo "build-guest: $*" >&2; }

# ---------------------------------------------------------------- kernel pick
find_kver() {
    if [ -n "${KVER:-}" ]; then echo "$KVER"; return; fi
    local v best=""
    for f in /boot/vmlinuz-*; do
        [ -e "$f" ] || continue
        v=${f#/boot/vmlinuz-}
        [ -f "/lib/modules/$v/modules.dep" ] || continue
        if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best" 2>/dev/null; then
            best=$v
        fi
    done
    echo "$best"
}

# ---------------------------------------------------------------- stamp check
stamp_value() { echo "$(sha256sum "$SELF" | cut -d' ' -f1) kver=$1 rootmb=$ROOT_MB"; }

kver=$(find_kver)
if [ -n "$kver" ] && [ -f "$OUT/vmlinuz" ] && [ -f "$OUT/initrd.img" ] && [ -f "$OUT/root.img" ] \
   && [ -f "$OUT/records-initrd.img" ] && [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$(stamp_value "$kver")" ]; then
    log "up to date: $OUT (kernel $kver)"
    exit 0
fi

# ---------------------------------------------------------------- dependencies
apt_install() {
    "$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)/bin/install-packages" "$@"
}

need=()
[ -n "$kver" ] || need+=(linux-image-amd64)
[ -x /bin/busybox ] || need+=(busybox-static)
command -v mkfs.ext4 >/dev/null 2>&1 || [ -x /sbin/mkfs.ext4 ] || need+=(e2fsprogs)
command -v cpio >/dev/null 2>&1 || need+=(cpio)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        log "missing packages (${need[*]}) and not root; install them first"
        exit 1
    fi
    log "installing: ${need[*]}"
    apt_install "${need[@]}"
fi
export PATH="$PATH:/sbin:/usr/sbin"
# busybox-static must be a *static* binary: it runs inside the guest with no libc.
BUSYBOX=/bin/busybox
if file -L "$BUSYBOX" 2>/dev/null | grep -q 'dynamically linked'; then
    log "$BUSYBOX is dynamically linked; install busybox-static"
    exit 1
fi

kver=$(find_kver)
if [ -z "$kver" ]; then
    log "no kernel with modules found in /boot and /lib/modules"
    exit 1
fi
MODDIR=/lib/modules/$kver
if [ ! -f "/boot/vmlinuz-$kver" ] || [ ! -f "$MODDIR/modules.dep" ]; then
    log "kernel $kver: need /boot/vmlinuz-$kver and $MODDIR/modules.dep"
    exit 1
fi
log "kernel $kver"

# ---------------------------------------------------------------- module resolution
# Modules needed to mount /dev/vda (virtio-blk on virtio-pci) as ext4. Their
# dependencies are resolved from modules.dep; anything built into the kernel
# (modules.builtin) is skipped. crc32c_generic satisfies ext4/jbd2's
# "softdep pre: crypto-crc32c" (needed for metadata_csum); the generic one is
# used because TCG's default CPU model has no SSE4.2 for crc32c-intel.
WANTED=(virtio_pci virtio_blk crc32c_generic ext4)

declare -A MODPATH=() MODDEPS=() SEEN=()
ORDER=()
norm() { local b=${1##*/}; b=${b%%.ko*}; echo "${b//-/_}"; }
while IFS= read -r line; do
    p=${line%%:*}
    n=${p##*/}; n=${n%%.ko*}; n=${n//-/_}
    MODPATH[$n]=$p
    MODDEPS[$n]=${line#*:}
done < "$MODDIR/modules.dep"
is_builtin() {
    [ -f "$MODDIR/modules.builtin" ] || return 1
    local b
    while IFS= read -r b; do
        [ "$(norm "$b")" = "$1" ] && return 0
    done < "$MODDIR/modules.builtin"
    return 1
}
visit() {
    local n=$1 d
    [ -z "${SEEN[$n]:-}" ] || return 0
    SEEN[$n]=1
    if [ -z "${MODPATH[$n]:-}" ]; then
        if is_builtin "$n"; then return 0; fi
        log "module $n not found in $MODDIR (neither module nor builtin)"
        exit 1
    fi
    # modules.dep lists the deepest dependency last; a depth-first post-order
    # walk gives a valid insmod order whatever the listing order.
    for d in ${MODDEPS[$n]}; do visit "$(norm "$d")"; done
    ORDER+=("$n")
}
for m in "${WANTED[@]}"; do visit "$m"; done
log "modules (insmod order): ${ORDER[*]}"

# ---------------------------------------------------------------- staging
mkdir -p "$OUT"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/build-guest.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
rm -f "$OUT/.stamp"

install_busybox() {   # DIR
    local dir=$1 a
    mkdir -p "$dir/bin" "$dir/sbin" "$dir/usr/bin" "$dir/usr/sbin"
    cp "$BUSYBOX" "$dir/bin/busybox"
    for a in $("$BUSYBOX" --list-full); do
        [ -e "$dir/$a" ] || ln -s /bin/busybox "$dir/$a"
    done
}

# ------------------------------------------------------------ initramfs
I=$WORK/initramfs
mkdir -p "$I"/{dev,proc,sys,newroot,lib/modules}
install_busybox "$I"
[ "$(id -u)" -eq 0 ] && mknod -m 600 "$I/dev/console" c 5 1 || true
: > "$I/modules.order"
for n in "${ORDER[@]}"; do
    src=$MODDIR/${MODPATH[$n]}
    dst=$I/lib/modules/$n.ko
    case "$src" in
        *.ko)     cp "$src" "$dst" ;;
        *.ko.xz)  xz -dc "$src" > "$dst" ;;
        *.ko.zst) zstd -qdc "$src" > "$dst" ;;
        *.ko.gz)  gzip -dc "$src" > "$dst" ;;
        *) log "unknown module format: $src"; exit 1 ;;
    esac
    echo "$n" >> "$I/modules.order"
done

# Sourced by both guests' /init, which define fail() first: console, /proc, /sys,
# the modules, and /dev/vda (waited for up to 10 s).
cat > "$I/start.sh" <<'EOF'
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys

for m in $(cat /modules.order); do
    insmod "/lib/modules/$m.ko" || fail "insmod $m"
done

i=0
while [ ! -b /dev/vda ]; do
    i=$((i + 1))
    [ $i -le 100 ] || fail "/dev/vda did not appear"
    sleep 0.1
done
EOF

cat > "$I/init" <<'EOF'
#!/bin/sh
# Heliotrope test initramfs: load virtio/ext4 modules, mount /dev/vda, switch_root.
fail() {
    echo "HELIO-GUEST: initramfs failure: $*"
    sleep 1
    poweroff -f
}
. /start.sh

mount -t ext4 -o rw /dev/vda /newroot || fail "mount /dev/vda"
[ -x /newroot/sbin/init ] || fail "/sbin/init missing on /dev/vda"

umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /sbin/init
EOF
chmod 755 "$I/init"

pack_initramfs() {   # OUTFILE: the staged $I as a gzip'd newc cpio
    (cd "$I" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --owner 0:0 --quiet) \
        | gzip -9n > "$1"
}
pack_initramfs "$WORK/initrd.img"

# ------------------------------------------------------------ records initramfs
# The same busybox and modules, another /init: PID 1 writes numbered records to
# the raw disk /dev/vda and never mounts anything. Record n is block n (4096
# bytes at n*4096): "n nonce sha256hex\n", NUL-padded, where sha256hex is the
# SHA-256 of the text "n nonce". "HELIO-REC n" is printed only after dd (with
# O_DIRECT and fsync) has returned, so an acknowledged record is on the disk.
cat > "$I/init" <<'EOF'
#!/bin/sh
# Heliotrope records guest: numbered records on /dev/vda until powered off.
idle() {   # PID 1 must never exit (the kernel would panic)
    while :; do sleep 3600; done
}
fail() {
    echo "HELIO-REC-FAIL: $*"
    idle
}
. /start.sh

nonce=$(sed -n 's/.*helio\.nonce=\([^ ]*\).*/\1/p' /proc/cmdline)
[ -n "$nonce" ] || fail "no helio.nonce= on the kernel command line"
blocks=$(($(cat /sys/block/vda/size) / 8))
echo "HELIO-REC-START: /dev/vda has $blocks records, nonce $nonce"

n=0
while [ $n -lt $blocks ]; do
    sum=$(printf '%s %s' $n "$nonce" | sha256sum | cut -d' ' -f1)
    if printf '%s %s %s\n' $n "$nonce" "$sum" \
        | dd of=/dev/vda bs=4096 seek=$n count=1 conv=sync,fsync,notrunc oflag=direct 2>/dev/null; then
        echo "HELIO-REC $n"
        n=$((n + 1))
    else
        # Not acknowledged: said once per failed attempt, then the same record again.
        echo "HELIO-REC-ERROR $n"
    fi
    sleep 0.2
done
echo "HELIO-REC-FULL: all $blocks records written"
idle
EOF
chmod 755 "$I/init"
pack_initramfs "$WORK/records-initrd.img"

# ------------------------------------------------------------ root fs
R=$WORK/rootfs
mkdir -p "$R"/{dev,proc,sys,tmp,etc,root}
install_busybox "$R"
rm -f "$R/sbin/init"
cat > "$R/sbin/init" <<'EOF'
#!/bin/sh
# Heliotrope guest workload (PID 1 after switch_root).
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
[ -c /dev/console ] || mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys

echo "HELIO-GUEST: booted"

up=$(cut -d' ' -f1 /proc/uptime)
nonce=$(sed -n 's/.*helio\.nonce=\([^ ]*\).*/\1/p' /proc/cmdline)
{
    echo "written-by-guest uptime=$up"
    [ -z "$nonce" ] || echo "nonce=$nonce"
} > /heliotrope-marker
sync
echo "HELIO-GUEST: wrote marker"

# Remount / read-only so ext4 checkpoints its journal and marks the fs clean
# (busybox mount needs /proc/mounts for this, so /proc stays mounted).
mount -o remount,ro / || echo "HELIO-GUEST: remount ro failed"
sync
echo "HELIO-GUEST: powering off"
poweroff -f
EOF
chmod 755 "$R/sbin/init"
echo "heliotrope-guest" > "$R/etc/hostname"

rm -f "$WORK/root.img"
truncate -s "${ROOT_MB}M" "$WORK/root.img"
mkfs.ext4 -q -F -L helio-root -E root_owner=0:0 -d "$R" "$WORK/root.img"

# ------------------------------------------------------------ publish
cp "/boot/vmlinuz-$kver" "$OUT/vmlinuz.tmp"
mv "$WORK/initrd.img" "$OUT/initrd.img"
mv "$WORK/records-initrd.img" "$OUT/records-initrd.img"
mv "$OUT/vmlinuz.tmp" "$OUT/vmlinuz"
mv "$WORK/root.img" "$OUT/root.img"
stamp_value "$kver" > "$OUT/.stamp"
log "built $OUT: vmlinuz initrd.img ($(du -k "$OUT/initrd.img" | cut -f1) KiB) records-initrd.img root.img (${ROOT_MB} MiB)"
