package io.heliotrope.nbd.server;

import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.protocol.NbdCommand;
import io.heliotrope.nbd.protocol.NbdError;
import io.heliotrope.nbd.protocol.NbdRequest;
import io.heliotrope.nbd.protocol.NbdSession;

import static io.heliotrope.nbd.protocol.NbdConstants.CMD_FLAG_DF;
import static io.heliotrope.nbd.protocol.NbdConstants.CMD_FLAG_FUA;
import static io.heliotrope.nbd.protocol.NbdConstants.CMD_FLAG_NO_HOLE;
import static io.heliotrope.nbd.protocol.NbdConstants.CMD_FLAG_REQ_ONE;
import static io.heliotrope.nbd.protocol.NbdConstants.MAX_PAYLOAD;

/**
 * Checks a request once, before any device sees it (the role of nbdkit's
 * {@code validate_request}): known command, allowed flags, writable export, offset and
 * length inside the export, payload within bounds, negotiated features in use.
 */
final class RequestValidator {
    private RequestValidator() {}

    static NbdError validate(NbdRequest request, NbdCommand command, NbdSession session) {
        BlockDevice device = session.device();
        if ((request.flags() & ~allowedFlags(command, session)) != 0) {
            return NbdError.EINVAL;
        }
        long offset = request.offset();
        long length = request.length();
        switch (command) {
            case FLUSH, DISC -> {
                return offset == 0 && length == 0 ? NbdError.OK : NbdError.EINVAL;
            }
            case WRITE, TRIM, WRITE_ZEROES -> {
                if (device.isReadOnly() || session.readOnly()) {
                    return NbdError.EPERM;
                }
                if (command == NbdCommand.TRIM && !device.canTrim()) {
                    return NbdError.EINVAL;
                }
                if (command == NbdCommand.WRITE && request.payload() == null) {
                    return NbdError.EINVAL;
                }
                return inRange(offset, length, device.size()) ? NbdError.OK : NbdError.ENOSPC;
            }
            case READ -> {
                if (length > MAX_PAYLOAD) {
                    return NbdError.EINVAL;
                }
                return inRange(offset, length, device.size()) ? NbdError.OK : NbdError.EINVAL;
            }
            case CACHE -> {
                return inRange(offset, length, device.size()) ? NbdError.OK : NbdError.EINVAL;
            }
            case BLOCK_STATUS -> {
                if (session.metaContexts().isEmpty() || length == 0) {
                    return NbdError.EINVAL;
                }
                return inRange(offset, length, device.size()) ? NbdError.OK : NbdError.EINVAL;
            }
        }
        throw new AssertionError(command);
    }

    private static int allowedFlags(NbdCommand command, NbdSession session) {
        return switch (command) {
            case READ -> session.structuredReplies() ? CMD_FLAG_DF : 0;
            case WRITE, TRIM -> CMD_FLAG_FUA;
            case WRITE_ZEROES -> CMD_FLAG_FUA | CMD_FLAG_NO_HOLE;
            case BLOCK_STATUS -> CMD_FLAG_REQ_ONE;
            case FLUSH, DISC, CACHE -> 0;
        };
    }

    /** Offset is unsigned on the wire: a "negative" offset is beyond any export. */
    private static boolean inRange(long offset, long length, long size) {
        return offset >= 0 && offset <= size && length <= size - offset;
    }
}
