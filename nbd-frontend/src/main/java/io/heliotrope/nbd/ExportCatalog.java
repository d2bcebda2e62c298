package io.heliotrope.nbd;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The exports an NBD server offers. The server opens a device once per connection
 * that selects an export and closes it when that connection ends. {@link #exportNames()}
 * and {@link #exists} are called on event loops: answer from memory, never block.
 */
public interface ExportCatalog {
    /** Names of the exports, for {@code NBD_OPT_LIST}. */
    List<String> exportNames();

    default boolean exists(String name) {
        return exportNames().contains(name);
    }

    /**
     * Opens an export for one connection. Fails with an {@link NbdException} of kind
     * {@code UNKNOWN_EXPORT} when there is no such export.
     */
    CompletableFuture<BlockDevice> open(String name);

    /**
     * What the server reports for a failure of {@link #open} or of a device it opened: an
     * {@link NbdException} for an error the catalog knows, else the failure as it is (a
     * fault). The one place where a catalog's own errors become NBD errors.
     */
    default Throwable translate(Throwable failure) {
        return failure;
    }
}
