#!/usr/bin/env python3
"""check_records.py DISK NONCE LAST: the records guest's records 0..LAST are in the raw DISK.

Record n is block n (4096 bytes): "n NONCE sha256hex\\n", NUL-padded, sha256hex the SHA-256
of "n NONCE" (it-tests' Records.java checks the same in the Java tests). Names the first bad one.
"""
import hashlib
import sys


def main(disk, nonce, last):
    with open(disk, "rb") as f:
        for n in range(int(last) + 1):
            f.seek(n * 4096)
            block = f.read(4096)
            body = f"{n} {nonce}"
            want = f"{body} {hashlib.sha256(body.encode()).hexdigest()}\n".encode()
            if block != want.ljust(4096, b"\0"):
                found = block.split(b"\0", 1)[0]
                sys.exit(f"record {n} of 0..{last} in {disk}: expected {want!r}, found {found!r}"
                         f" ({len(block)} bytes)")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
