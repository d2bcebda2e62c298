package io.heliotrope.nbd.protocol;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportDetails;
import io.heliotrope.nbd.MetaContext;

import java.util.List;

import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_CAN_MULTI_CONN;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_HAS_FLAGS;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_READ_ONLY;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_SEND_CACHE;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_SEND_DF;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_SEND_FLUSH;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_SEND_FUA;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_SEND_TRIM;
import static io.heliotrope.nbd.protocol.NbdConstants.TRANSMISSION_SEND_WRITE_ZEROES;
import static java.util.Objects.requireNonNull;

/**
 * What a connection negotiated in the handshake, and the device it opened; BLOCK_STATUS
 * reports the selected metadata contexts, if any, in this order. With {@code readOnly} the
 * client may only read, whatever the device allows (its TLS identity's authorization).
 */
public record NbdSession(String exportName, BlockDevice device, boolean structuredReplies, List<SelectedContext> metaContexts, boolean readOnly) {
    public NbdSession {
        requireNonNull(exportName, "exportName is null");
        requireNonNull(device, "device is null");
        metaContexts = List.copyOf(metaContexts);
    }

    /** A metadata context the client selected, with the id the server gave it. */
    public record SelectedContext(int id, MetaContext context) {
        public SelectedContext {
            requireNonNull(context, "context is null");
        }
    }

    public int transmissionFlags() {
        ExportDetails details = ExportDetails.of(device);
        return transmissionFlags(readOnly ? details.asReadOnly() : details, structuredReplies);
    }

    /**
     * The flags we advertise for an export: FUA, WRITE_ZEROES and CACHE always (the server
     * emulates them), TRIM only where the export can, DF only with structured replies.
     */
    public static int transmissionFlags(ExportDetails export, boolean structuredReplies) {
        int flags = TRANSMISSION_HAS_FLAGS | TRANSMISSION_SEND_FLUSH | TRANSMISSION_SEND_FUA
                | TRANSMISSION_SEND_WRITE_ZEROES | TRANSMISSION_SEND_CACHE;
        if (export.readOnly()) {
            flags |= TRANSMISSION_READ_ONLY;
        }
        if (export.canTrim()) {
            flags |= TRANSMISSION_SEND_TRIM;
        }
        if (export.canMultiConn()) {
            flags |= TRANSMISSION_CAN_MULTI_CONN;
        }
        if (structuredReplies) {
            flags |= TRANSMISSION_SEND_DF;
        }
        return flags;
    }
}
