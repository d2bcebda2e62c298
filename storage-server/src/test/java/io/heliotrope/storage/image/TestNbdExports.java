package io.heliotrope.storage.image;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import io.heliotrope.nbd.BlockDevice;
import io.heliotrope.nbd.NbdException;
import io.heliotrope.nbd.protocol.NbdError;
import io.heliotrope.nbd.protocol.NbdErrors;
import io.heliotrope.storage.memory.MemoryBlockStore;
import io.heliotrope.storage.view.LocalOnlyFetcher;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_POLICY;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_SHUTDOWN;
import static io.heliotrope.nbd.protocol.NbdConstants.REP_ERR_UNKNOWN;
import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
            RuntimeException translated = NbdExports.translate(new CompletionException(new HeliotropeException(code, "what went wrong")));
            assertThat(translated).isInstanceOf(NbdException.class).hasMessage("what went wrong");
            assertThat(NbdErrors.toNbdError(translated)).as(code.name()).isEqualTo(ERRNO.get(code));
            assertThat(NbdErrors.toOptionError(translated)).as(code.name()).isEqualTo(OPTION_ERROR.getOrDefault(code, REP_ERR_POLICY));
            assertThat(NbdErrors.isFault(translated)).as("logged at open: " + code.name()).isEqualTo(code == ErrorCode.STORAGE_FAILURE);
        }
    }

    @Test
    void otherFailuresPassAsTheyAre() {
        IllegalStateException bug = new IllegalStateException("bug");
        assertThat(NbdExports.translate(bug)).isInstanceOf(CompletionException.class).hasCause(bug);
        assertThat(NbdExports.translate(new CompletionException(bug))).hasCause(bug);
    }

    @Test
    void openingAMissingImageFailsAsAnUnknownExport() {
        MemoryBlockStore store = new MemoryBlockStore();
        DeviceFactory devices = new DefaultDeviceFactory(store, new LocalOnlyFetcher(), Runnable::run, true, Runnable::run, UnpooledByteBufAllocator.DEFAULT);
        NbdExports exports = new NbdExports(new ImageExports(new LocalSessions(store), devices, Runnable::run));
        assertThatThrownBy(() -> exports.open("nope").join())
                .cause()
                .isInstanceOfSatisfying(NbdException.class, e -> assertThat(e.kind()).isEqualTo(NbdException.Kind.UNKNOWN_EXPORT))
                .hasMessage("image 'nope' does not exist");
    }

    @Test
    void aFullDiskFailsAWriteWithNoSpace() {
        BlockDevice full = new NbdExports.TranslatingDevice(new FullDisk());
        Throwable failure = full.write(0, Unpooled.EMPTY_BUFFER, false).handle((ignored, thrown) -> thrown).join();
        assertThat(NbdErrors.toNbdError(failure)).isEqualTo(NbdError.ENOSPC);
    }

    @Test
    void theTranslatingDeviceLeavesNoMethodToItsDefault() throws NoSuchMethodException {
        for (Method method : BlockDevice.class.getMethods()) {
            Method own = NbdExports.TranslatingDevice.class.getMethod(method.getName(), method.getParameterTypes());
            assertThat(own.getDeclaringClass()).as(method.getName()).isEqualTo(NbdExports.TranslatingDevice.class);
        }
    }

    /** A device whose every write finds the disk full. */
    private static final class FullDisk implements BlockDevice {
        @Override
        public long size() {
            return 4096;
        }

        @Override
        public CompletableFuture<ByteBuf> read(long offset, int length) {
            throw new UnsupportedOperationException("read");
        }

        @Override
        public CompletableFuture<Void> write(long offset, ByteBuf data, boolean fua) {
            return CompletableFuture.failedFuture(new HeliotropeException(ErrorCode.NO_SPACE, "disk full"));
        }

        @Override
        public CompletableFuture<Void> flush() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void close() {}
    }
}
