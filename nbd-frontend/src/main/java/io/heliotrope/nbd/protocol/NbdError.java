package io.heliotrope.nbd.protocol;

/** The errno values the protocol lets a server send, with their wire values. */
public enum NbdError {
    OK(0),
    EPERM(1),
    EIO(5),
    ENOMEM(12),
    EINVAL(22),
    ENOSPC(28),
    EOVERFLOW(75),
    ENOTSUP(95),
    ESHUTDOWN(108);

    private final int wireValue;

    NbdError(int wireValue) {
        this.wireValue = wireValue;
    }

    public int wireValue() {
        return wireValue;
    }
}
