package io.heliotrope.cli.transfer;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.client.NbdClientException;
import io.heliotrope.nbd.protocol.NbdError;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_SHUTDOWN;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;

/** The one place where the failures of an import or export become the CLI's errors: NBD refusals, lost connections, files. */
final class TransferErrors {
    private TransferErrors() {}

    /** A failure of a copy to or from {@code image}; our own errors pass as they are. */
    static HeliotropeException copy(Exception e, NbdImage image) {
        if (HeliotropeException.unwrap(e) instanceof HeliotropeException known) {
            return known;
        }
        String site = "the NBD server at " + image.host() + ":" + image.port();
        if (e instanceof NbdClientException refused) {
            if (refused.optionError() != 0) {
                ErrorCode code = switch (refused.optionError()) {
                    case REP_ERR_UNKNOWN -> ErrorCode.IMAGE_NOT_FOUND;
                    case REP_ERR_SHUTDOWN -> ErrorCode.SHUTTING_DOWN;
                    default -> ErrorCode.IMAGE_IN_USE;
                };
                return new HeliotropeException(code, site + " refused image '" + image.name() + "': " + refused.getMessage(), e);
            }
            if (refused.errno() == NbdError.ENOSPC.wireValue()) {
                return new HeliotropeException(ErrorCode.NO_SPACE, "the site is out of space: " + refused.getMessage(), e);
            }
            if (refused.errno() == NbdError.ESHUTDOWN.wireValue()) {
                return new HeliotropeException(ErrorCode.SHUTTING_DOWN, site + " is shutting down: " + refused.getMessage(), e);
            }
            return new HeliotropeException(ErrorCode.STORAGE_FAILURE, refused.getMessage(), e);
        }
        if (e instanceof ConnectException) {
            return new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "cannot reach " + site + ": " + e.getMessage(), e);
        }
        return new HeliotropeException(ErrorCode.PEER_UNAVAILABLE, "lost " + site + ": " + HeliotropeException.rootMessage(e), e);
    }

    /** A failure to {@code action} (read, write) the file of a copy, here on this machine. */
    static HeliotropeException file(String action, Path file, IOException e) {
        String message = e instanceof NoSuchFileException ? "no such file"
                : e instanceof AccessDeniedException ? "permission denied"
                : e instanceof FileNotFoundException ? reason(e.getMessage()) : HeliotropeException.rootMessage(e);
        ErrorCode code = message != null && message.contains("No space left on device") ? ErrorCode.NO_SPACE : ErrorCode.INVALID_ARGUMENT;
        return new HeliotropeException(code, "cannot " + action + " " + file + ": " + message, e);
    }

    /** "/a/b (No such file or directory)", as java.io says it, becomes "no such file or directory". */
    private static String reason(String message) {
        int open = message.lastIndexOf(" (");
        if (open < 0 || !message.endsWith(")")) {
            return message;
        }
        String reason = message.substring(open + 2, message.length() - 1);
        return reason.isEmpty() ? message : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
    }
}
