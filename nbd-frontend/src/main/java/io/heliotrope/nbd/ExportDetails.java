package io.heliotrope.nbd;

/**
 * What {@code NBD_OPT_INFO} tells of an export: its size, and the capabilities that decide
 * its transmission flags (the server emulates the others: FUA, WRITE_ZEROES, CACHE).
 */
public record ExportDetails(long size, boolean readOnly, boolean canTrim, boolean canMultiConn) {
    /** What a device opened for the export says of it. */
    public static ExportDetails of(BlockDevice device) {
        return new ExportDetails(device.size(), device.isReadOnly(), device.canTrim(), device.canMultiConn());
    }

    /** The export as a client that may only read sees it. */
    public ExportDetails asReadOnly() {
        return new ExportDetails(size, true, canTrim, canMultiConn);
    }
}
