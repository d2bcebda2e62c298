package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import org.junit.jupiter.api.Test;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystemException;

import static org.assertj.core.api.Assertions.assertThat;

class TestStorageErrors {
    @Test
    void aRocksDbIoErrorWithTheNoSpaceSubcodeIsNoSpace() {
        RocksDBException full = new RocksDBException("While appending to file: /d/index/000008.log: No space left on device",
                new Status(Status.Code.IOError, Status.SubCode.NoSpace, "While appending to file: /d/index/000008.log: No space left on device"));

        assertThat(StorageErrors.failure("RocksDB failed to write image 1", full))
                .hasMessage("RocksDB failed to write image 1: While appending to file: /d/index/000008.log: No space left on device")
                .extracting(e -> e.code()).isEqualTo(ErrorCode.NO_SPACE);
    }

    @Test
    void aRocksDbIoErrorThatOnlySaysTheQuotaIsUsedUpIsNoSpace() {
        RocksDBException quota = new RocksDBException("While appending to file: /d/index/000009.sst: Disk quota exceeded",
                new Status(Status.Code.IOError, Status.SubCode.None, "While appending to file: /d/index/000009.sst: Disk quota exceeded"));

        assertThat(StorageErrors.failure("RocksDB failed to sync", quota).code()).isEqualTo(ErrorCode.NO_SPACE);
    }

    @Test
    void otherRocksDbErrorsAreStorageFailures() {
        RocksDBException seen = new RocksDBException("Seen error. Skip writing buffer.",
                new Status(Status.Code.IOError, Status.SubCode.None, "Seen error. Skip writing buffer."));
        RocksDBException corrupt = new RocksDBException("block checksum mismatch", new Status(Status.Code.Corruption, Status.SubCode.None, null));

        assertThat(StorageErrors.failure("RocksDB failed to sync", seen).code()).isEqualTo(ErrorCode.STORAGE_FAILURE);
        assertThat(StorageErrors.failure("RocksDB failed to read image 1", corrupt).code()).isEqualTo(ErrorCode.STORAGE_FAILURE);
    }

    @Test
    void aPwriteOrFsyncThatFoundNoSpaceIsNoSpaceWhereverItIsWrapped() {
        IOException pwrite = new IOException("No space left on device");
        FileSystemException truncate = new FileSystemException("/d/blocks/1.blocks", null, "Disk quota exceeded");

        assertThat(StorageErrors.failure("cannot write the block file of image 1", pwrite))
                .hasMessage("cannot write the block file of image 1: No space left on device")
                .extracting(e -> e.code()).isEqualTo(ErrorCode.NO_SPACE);
        assertThat(StorageErrors.isNoSpace(truncate)).isTrue();
        assertThat(StorageErrors.isNoSpace(new UncheckedIOException(pwrite))).isTrue();
        assertThat(StorageErrors.isNoSpace(new IOException("Input/output error"))).isFalse();
        assertThat(StorageErrors.isNoSpace(new FileSystemException("/d/blocks/1.blocks"))).isFalse();
    }
}
