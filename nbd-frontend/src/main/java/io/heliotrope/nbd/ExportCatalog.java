package io.heliotrope.nbd;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The exports an NBD server offers. The server opens a device once per connection
 * that selects an export and closes it when that connection ends. Every method is called
 * on an event loop: {@link #exists} answers from memory, the others return at once and
 * complete later, on any thread.
 */
public interface ExportCatalog {
    /**
     * The exports, for {@code NBD_OPT_LIST}, in the order to list them. A failure is
     * answered with the error reply {@link #translate} gives it, and the client may try again.
     */
    CompletableFuture<List<ListedExport>> list();

    /** Whether a client may select metadata contexts of {@code name}: answered from memory, never blocks. */
    boolean exists(String name);

    /**
     * Opens an export for one connection. Fails with an {@link NbdException} of kind
     * {@code UNKNOWN_EXPORT} when there is no such export.
     */
    CompletableFuture<BlockDevice> open(String name);

    /**
     * What {@code NBD_OPT_INFO} tells of an export, which a client may ask of every export
     * it lists without using any. By default the answer of a device opened for it and closed
     * at once; a catalog whose opens cost more (they take a lease, say) answers from what it
     * knows. Fails as {@link #open} does for an export that does not exist.
     */
    default CompletableFuture<ExportDetails> details(String name) {
        return open(name).thenApply(device -> {
            try {
                return ExportDetails.of(device);
            } finally {
                device.close();
            }
        });
    }

    /**
     * What the server reports for a failure of {@link #list}, {@link #details}, {@link #open} or of a device
     * it opened: an {@link NbdException} for an error the catalog knows, else the failure as
     * it is (a fault). The one place where a catalog's own errors become NBD errors.
     */
    default Throwable translate(Throwable failure) {
        return failure;
    }
}
