package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

import java.nio.file.FileSystemException;
import java.util.List;

/**
 * Our errors for failures of the store's RocksDB index and block files: {@code NO_SPACE}
 * when the file system is full (ENOSPC) or the user's quota is used up (EDQUOT), which
 * clients may retry once space is freed, else {@code STORAGE_FAILURE}.
 */
final class StorageErrors {
    /** What {@code strerror} says for ENOSPC and EDQUOT, in the JDK's exceptions and in RocksDB's statuses. */
    private static final List<String> NO_SPACE_REASONS = List.of("No space left on device", "Disk quota exceeded");

    private StorageErrors() {}

    /** {@code what} failed because of {@code cause}: "what: cause's message". */
    static HeliotropeException failure(String what, Exception cause) {
        return new HeliotropeException(isNoSpace(cause) ? ErrorCode.NO_SPACE : ErrorCode.STORAGE_FAILURE, what + ": " + cause.getMessage(), cause);
    }

    /**
     * Whether the file system had no room: a RocksDB status of an I/O error with the
     * {@code NoSpace} subcode (RocksDB gives EDQUOT no subcode, only its text), or an
     * exception in the chain whose message, or {@link FileSystemException#getReason() reason}, says so.
     */
    static boolean isNoSpace(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            if (cause instanceof RocksDBException rocks && rocks.getStatus() != null
                    && rocks.getStatus().getCode() == Status.Code.IOError && rocks.getStatus().getSubCode() == Status.SubCode.NoSpace) {
                return true;
            }
            String reason = cause instanceof FileSystemException file ? file.getReason() : cause.getMessage();
            if (reason != null && NO_SPACE_REASONS.stream().anyMatch(reason::contains)) {
                return true;
            }
        }
        return false;
    }
}
