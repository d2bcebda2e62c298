package io.heliotrope.storage.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.ExportDetails;
import io.heliotrope.nbd.NbdException;
import io.heliotrope.nbd.protocol.NbdError;
import io.heliotrope.nbd.protocol.NbdErrors;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.view.ReadCounter;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.CompletionException;

import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_POLICY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_SHUTDOWN;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;
import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

class TestNbdExports {
    /** The errno a request gets, and the error reply an open gets, for each of our codes. */
    private static final Map<ErrorCode, NbdError> ERRNO = Map.ofEntries(
            entry(ErrorCode.INVALID_ARGUMENT, NbdError.EINVAL),
            entry(ErrorCode.OUT_OF_RANGE, NbdError.ENOSPC),
            entry(ErrorCode.IMAGE_NOT_FOUND, NbdError.EINVAL),
            entry(ErrorCode.IMAGE_EXISTS, NbdError.EPERM),
            entry(ErrorCode.IMAGE_IN_USE, NbdError.EPERM),
            entry(ErrorCode.READ_ONLY, NbdError.EPERM),
            entry(ErrorCode.SITE_NOT_FOUND, NbdError.EINVAL),
            entry(ErrorCode.VM_NOT_FOUND, NbdError.EINVAL),
            entry(ErrorCode.VM_EXISTS, NbdError.EPERM),
            entry(ErrorCode.VM_BUSY, NbdError.EPERM),
            entry(ErrorCode.APPLICATION_NOT_FOUND, NbdError.EINVAL),
            entry(ErrorCode.APPLICATION_EXISTS, NbdError.EPERM),
            entry(ErrorCode.NOT_LEADER, NbdError.EPERM),
            entry(ErrorCode.TOOL_MISSING, NbdError.EINVAL),
            entry(ErrorCode.LEASE_HELD, NbdError.EPERM),
            entry(ErrorCode.STALE_LEASE, NbdError.EIO),
            entry(ErrorCode.BLOCK_NOT_LOCAL, NbdError.EIO),
            entry(ErrorCode.PEER_UNAVAILABLE, NbdError.EIO),
            entry(ErrorCode.SHUTTING_DOWN, NbdError.ESHUTDOWN),
            entry(ErrorCode.NO_SPACE, NbdError.ENOSPC),
            entry(ErrorCode.STORAGE_FAILURE, NbdError.EIO));
    private static final Map<ErrorCode, Integer> OPTION_ERROR = Map.of(
            ErrorCode.IMAGE_NOT_FOUND, REP_ERR_UNKNOWN,
            ErrorCode.SHUTTING_DOWN, REP_ERR_SHUTDOWN);

    @Test
    void eachErrorCodeKeepsItsNbdErrors() {
        assertThat(ERRNO).containsOnlyKeys(ErrorCode.values());
        for (ErrorCode code : ErrorCode.values()) {
            Throwable translated = exports().translate(new CompletionException(new HeliotropeException(code, "what went wrong")));
            assertThat(translated).isInstanceOf(NbdException.class).hasMessage("what went wrong");
            assertThat(NbdErrors.toNbdError(translated)).as(code.name()).isEqualTo(ERRNO.get(code));
            assertThat(NbdErrors.toOptionError(translated)).as(code.name()).isEqualTo(OPTION_ERROR.getOrDefault(code, REP_ERR_POLICY));
            assertThat(NbdErrors.isFault(translated)).as("logged at open: " + code.name()).isEqualTo(code == ErrorCode.STORAGE_FAILURE);
        }
    }

    @Test
    void otherFailuresPassAsTheyAre() {
        IllegalStateException bug = new IllegalStateException("bug");
        assertThat(exports().translate(bug)).isSameAs(bug);
        CompletionException wrapped = new CompletionException(bug);
        assertThat(exports().translate(wrapped)).isSameAs(wrapped);
    }

    @Test
    void openingAMissingImageFailsAsAnUnknownExport() {
        NbdExports exports = exports();
        Throwable failure = exports.open("nope").handle((ignored, thrown) -> thrown).join();
        assertThat(exports.translate(failure))
                .isInstanceOfSatisfying(NbdException.class, e -> assertThat(e.kind()).isEqualTo(NbdException.Kind.UNKNOWN_EXPORT))
                .hasMessage("image 'nope' does not exist");
    }

    @Test
    void theDetailsOfAnImageAreThoseOfAConnectionToItWithoutOpeningIt() {
        MemoryBlockStore store = new MemoryBlockStore();
        store.createImage("disk", 1 << 20);
        ImageExports images = imageExports(store);
        NbdExports exports = new NbdExports(images);

        ExportDetails details = exports.details("disk").join();
        assertThat(images.inUse()).isEmpty();
        try (BlockDevice device = exports.open("disk").join()) {
            assertThat(details).isEqualTo(ExportDetails.of(device)).extracting(ExportDetails::size).isEqualTo(1L << 20);
        }
        Throwable failure = exports.details("nope").handle((ignored, thrown) -> thrown).join();
        assertThat(exports.translate(failure))
                .isInstanceOfSatisfying(NbdException.class, e -> assertThat(e.kind()).isEqualTo(NbdException.Kind.UNKNOWN_EXPORT));
    }

    private static NbdExports exports() {
        return new NbdExports(imageExports(new MemoryBlockStore()));
    }

    private static ImageExports imageExports(MemoryBlockStore store) {
        DeviceFactory devices = new DefaultDeviceFactory(store, new LocalOnlyFetcher(), ReplicatorFactory.NONE, ReadCounter.NONE, Runnable::run, true, Runnable::run, UnpooledByteBufAllocator.DEFAULT);
        return new ImageExports(new LocalSessions(store), devices, Runnable::run);
    }
}
