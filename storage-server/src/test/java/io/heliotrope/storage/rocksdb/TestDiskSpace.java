package io.heliotrope.storage.rocksdb;

import io.heliotrope.error.ErrorCode;
import io.heliotrope.error.HeliotropeException;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TestDiskSpace {
    private static final long MIB = 1 << 20;
    private static final long SECOND = Duration.ofSeconds(1).toNanos();

    /** What statvfs would say now: the test takes space as a write would, or frees it. */
    private long usable = 200 * MIB;
    private int measured;
    private long now;
    private final DiskSpace space = new DiskSpace(Path.of("/data"), () -> {
        measured++;
        return usable;
    }, 96 * MIB, () -> now);

    @Test
    void refusesBlockDataThatWouldLeaveLessThanTheReserveUntilSpaceIsFreed() {
        space.admit(64 * MIB);
        usable -= 64 * MIB;
        space.admit(32 * MIB);
        usable -= 32 * MIB;

        assertThatThrownBy(() -> space.admit(16 * MIB))
                .isInstanceOf(HeliotropeException.class)
                .hasMessage("the file system of /data has 104 MiB free, and the block store keeps 96 MiB of it for its index: free space there")
                .extracting(e -> ((HeliotropeException) e).code()).isEqualTo(ErrorCode.NO_SPACE);
        usable += 64 * MIB;
        space.admit(16 * MIB);
        assertThat(measured).as("measured at the first write and whenever one might not fit").isEqualTo(3);
    }

    @Test
    void aSmallIndexChangeNeedsOnlyRoomForTheLog() {
        usable = 90 * MIB;
        assertThatThrownBy(() -> space.admit(4096)).hasMessageContaining("has 90 MiB free");
        space.admitIndexChange();

        usable = 3 * MIB;
        now += SECOND;
        assertThatThrownBy(space::admitIndexChange)
                .hasMessage("the file system of /data has 3 MiB free, and the block store keeps 4 MiB of it for its index: free space there");
    }

    @Test
    void farFromTheLimitMeasuresOnceASecond() {
        for (int i = 0; i < 1000; i++) {
            space.admit(4096);
            now += SECOND / 100;
        }
        assertThat(measured).isEqualTo(10);
    }

    @Test
    void spaceTakenByOthersIsSeenWithinASecond() {
        space.admit(4096);
        usable = 50 * MIB;
        space.admit(4096);
        now += SECOND;

        assertThatThrownBy(() -> space.admit(4096)).hasMessageContaining("has 50 MiB free");
    }
}
